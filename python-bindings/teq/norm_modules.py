"""TE's ``te.LayerNorm`` and ``te.RMSNorm`` modules inside a Program
(Program.LayerNorm / Program.RMSNorm): they own the weight (and bias)
parameters, named "<name>.weight" / "<name>.bias", and calling one on a
Tensor adds the norm to the program (Program.layer_norm / rms_norm)."""

__all__ = ["LayerNormModule", "RMSNormModule"]


def _hidden_size(kind, normalized_shape):
    """TE's normalized_shape: an int or a one-element sequence (the last
    dimension; TE normalises over one dimension only)."""
    shape = ((normalized_shape,) if isinstance(normalized_shape, int)
             else tuple(normalized_shape))
    if len(shape) != 1 or not isinstance(shape[0], int) or shape[0] < 1:
        raise ValueError(f"{kind}: normalized_shape must be a positive int (the "
                         f"last dimension), got {normalized_shape!r}")
    return shape[0]


class LayerNormModule:
    """``te.LayerNorm(normalized_shape, eps=1e-5, zero_centered_gamma=False,
    params_dtype)``: weight and bias [n] (TE initialises the weight to 1,
    or 0 when zero-centred, and the bias to 0; a Program's parameters are
    passed in at run time)."""

    def __init__(self, program, normalized_shape, eps=1e-5,
                 zero_centered_gamma=False, name=None, params_dtype="bf16"):
        n = _hidden_size("LayerNorm", normalized_shape)
        self.program = program
        self.name = name or f"layernorm{len(program._norm_modules)}"
        program._norm_modules.append(self)
        self.eps = eps
        self.zero_centered_gamma = zero_centered_gamma
        self.weight = program.parameter(f"{self.name}.weight", (n,), params_dtype)
        self.bias = program.parameter(f"{self.name}.bias", (n,), params_dtype)

    def __call__(self, x):
        return self.program.layer_norm(
            x, self.weight, self.bias, eps=self.eps,
            zero_centered_gamma=self.zero_centered_gamma, name=self.name)


class RMSNormModule:
    """``te.RMSNorm(normalized_shape, eps=1e-5, zero_centered_gamma=False,
    params_dtype)``: weight [n]."""

    def __init__(self, program, normalized_shape, eps=1e-5,
                 zero_centered_gamma=False, name=None, params_dtype="bf16"):
        n = _hidden_size("RMSNorm", normalized_shape)
        self.program = program
        self.name = name or f"rmsnorm{len(program._norm_modules)}"
        program._norm_modules.append(self)
        self.eps = eps
        self.zero_centered_gamma = zero_centered_gamma
        self.weight = program.parameter(f"{self.name}.weight", (n,), params_dtype)

    def __call__(self, x):
        return self.program.rms_norm(
            x, self.weight, eps=self.eps,
            zero_centered_gamma=self.zero_centered_gamma, name=self.name)
