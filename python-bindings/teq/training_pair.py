"""A training pair: a forward entry and its backward entry whose arguments and
results are given roles explicitly (teq.runtime.TrainingPair, used by
teq.torch.Linear). Works on teq.runtime's Entry objects (loaded or
inspected); needs no GPU."""

# Roles of a Linear training pair's arguments and results (teq.torch.Linear).
FORWARD_ARG_ROLES = ("input", "weight", "bias")
FORWARD_RESULT_ROLES = ("output", "saved")
BACKWARD_ARG_ROLES = ("grad_output", "saved", "input", "weight", "bias", "main_grad")
BACKWARD_RESULT_ROLES = ("grad_input", "grad_weight", "grad_bias", "main_grad")


def _parse_role(role, allowed, where):
    if not isinstance(role, str):
        raise ValueError(f"{where}: a role is a string, got {role!r}")
    if role.startswith("state:"):
        name = role[6:]
        if not name.isidentifier():
            raise ValueError(f"{where}: state buffer name '{name}' is not an identifier")
        return ("state", name)
    if role not in allowed:
        raise ValueError(f"{where}: unknown role '{role}' (roles: {', '.join(allowed)}, "
                         f"'state:<buffer name>')")
    return (role, None)


def _arg_sig(arg):
    """What must agree between a forward result and a backward argument."""
    if arg.is_proto:
        return ("proto", arg.dtype, arg.shape, arg.quantizer_kind, arg.usage,
                tuple((b.name, b.encoding, b.shape) for b in arg.value_buffers))
    return ("tensor", arg.dtype, arg.shape)


class TrainingPair:
    """How a forward entry and a backward entry make one differentiable
    layer, with every argument's role explicit and checked against both
    manifests (teq.torch.Linear builds on it; it needs no GPU).

    The artifact convention (te-compile on a function pair): the forward
    entry ``F(x, w, [bias], [state...]) -> (y..., saved..., [updated
    state...])`` and the backward entry ``B(dy..., saved..., [state...],
    [main_grad]) -> (dx, dw, [dbias], [updated state...])``, where saved
    results may be quantized (proto). Roles:

    - forward_args: ``input``, ``weight``, ``bias``, ``state:<name>`` (a
      module buffer, e.g. the delayed-scaling scale and amax history);
    - forward_results: ``output``, ``saved`` (passed to the backward, in
      order), ``state:<name>`` (the buffer's new value, written back);
    - backward_args: ``grad_output`` (one per ``output``, in order),
      ``saved`` (the forward's saved results, in order), ``input``,
      ``weight``, ``bias`` (the forward's own arguments: high-precision
      saved tensors the compiler dropped from the forward's results,
      ``teq.saved_from_args``), ``state:<name>``, ``main_grad``;
    - backward_results: ``grad_input``, ``grad_weight``, ``grad_bias``,
      ``main_grad`` (the new main_grad, written back:
      fuse_wgrad_accumulation), ``state:<name>``.

    Defaults: forward_args ``("input", "weight")``; forward_results
    ``num_outputs`` x ``output`` then ``saved`` for the rest; backward_args
    ``num_outputs`` x ``grad_output`` then ``saved`` for the rest;
    backward_results ``("grad_input", "grad_weight")``. Any mismatch in
    counts, shapes or dtypes is a ValueError naming both sides.
    """

    # Entries are shared, not copied (nn.Module deepcopy, copy.copy).
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __init__(self, forward, backward, *, num_outputs=1, forward_args=None,
                 forward_results=None, backward_args=None, backward_results=None):
        self.forward = forward
        self.backward = backward
        fin, fout = forward.inputs, forward.outputs
        bin_, bout = backward.inputs, backward.outputs
        fname, bname = forward.name, backward.name
        if num_outputs < 1 or num_outputs > len(fout):
            raise ValueError(f"entry '{fname}': num_outputs={num_outputs}, but it has "
                             f"{len(fout)} results")
        if forward_args is None:
            forward_args = ("input", "weight")
        if forward_results is None:
            forward_results = ("output",) * num_outputs + ("saved",) * (len(fout) - num_outputs)
        if backward_args is None:
            backward_args = ("grad_output",) * num_outputs + ("saved",) * (len(bin_) - num_outputs)
        if backward_results is None:
            backward_results = ("grad_input", "grad_weight")
        self.forward_args = self._roles(forward_args, fin, FORWARD_ARG_ROLES,
                                        f"entry '{fname}' (forward) arguments")
        self.forward_results = self._roles(forward_results, fout, FORWARD_RESULT_ROLES,
                                           f"entry '{fname}' (forward) results")
        self.backward_args = self._roles(backward_args, bin_, BACKWARD_ARG_ROLES,
                                         f"entry '{bname}' (backward) arguments")
        self.backward_results = self._roles(backward_results, bout, BACKWARD_RESULT_ROLES,
                                            f"entry '{bname}' (backward) results")
        self.num_outputs = sum(1 for r, _ in self.forward_results if r == "output")
        if self.num_outputs != num_outputs:
            raise ValueError(f"entry '{fname}': forward_results has {self.num_outputs} "
                             f"'output' roles, num_outputs is {num_outputs}")

        def once(roles, role, where):
            count = sum(1 for r, _ in roles if r == role)
            if count > 1:
                raise ValueError(f"{where}: role '{role}' appears {count} times")
            return count == 1

        for role in ("input", "weight", "bias"):
            once(self.forward_args, role, f"entry '{fname}' (forward) arguments")
        for role in ("input", "weight", "bias", "main_grad"):
            once(self.backward_args, role, f"entry '{bname}' (backward) arguments")
        for role in ("grad_input", "grad_weight", "grad_bias", "main_grad"):
            once(self.backward_results, role, f"entry '{bname}' (backward) results")
        if not once(self.forward_args, "input", f"entry '{fname}' (forward) arguments"):
            raise ValueError(f"entry '{fname}' (forward) arguments: no 'input' role")
        if not once(self.forward_args, "weight", f"entry '{fname}' (forward) arguments"):
            raise ValueError(f"entry '{fname}' (forward) arguments: no 'weight' role")

        # Every forward argument by role, for checks against the backward.
        fargs = {role: a for (role, _), a in zip(self.forward_args, fin) if role != "state"}
        outputs = [a for (role, _), a in zip(self.forward_results, fout) if role == "output"]
        saved = [a for (role, _), a in zip(self.forward_results, fout) if role == "saved"]
        grads = [a for (role, _), a in zip(self.backward_args, bin_) if role == "grad_output"]
        bsaved = [a for (role, _), a in zip(self.backward_args, bin_) if role == "saved"]
        if len(grads) != len(outputs):
            raise ValueError(f"entry '{bname}' (backward) takes {len(grads)} grad_output "
                             f"arguments, entry '{fname}' has {len(outputs)} outputs")
        for y, dy in zip(outputs, grads):
            if _arg_sig(y) != _arg_sig(dy):
                raise ValueError(f"entry '{bname}' argument '{dy.name}' ({dy.type_text()}) "
                                 f"is the gradient of entry '{fname}' result '{y.name}' "
                                 f"({y.type_text()}): they must agree")
        if len(bsaved) != len(saved):
            raise ValueError(
                f"entry '{fname}' saves {len(saved)} results for backward "
                f"({', '.join(a.name for a in saved)}), entry '{bname}' takes {len(bsaved)} "
                f"saved arguments ({', '.join(a.name for a in bsaved)}); if the compiler "
                f"dropped saved tensors that are the forward's own arguments "
                f"(teq.saved_from_args), give the backward's roles explicitly with "
                f"'input'/'weight' for them")
        for i, (s, b) in enumerate(zip(saved, bsaved)):
            if _arg_sig(s) != _arg_sig(b):
                raise ValueError(
                    f"saved tensor {i}: entry '{fname}' result '{s.name}' ({s.type_text()}) "
                    f"does not match entry '{bname}' argument '{b.name}' ({b.type_text()})")
        for (role, _), a in zip(self.backward_args, bin_):
            if role in ("input", "weight", "bias"):
                if role not in fargs:
                    raise ValueError(f"entry '{bname}' argument '{a.name}' has role '{role}', "
                                     f"but entry '{fname}' has no '{role}' argument")
                if _arg_sig(fargs[role]) != _arg_sig(a):
                    raise ValueError(f"entry '{bname}' argument '{a.name}' ({a.type_text()}) "
                                     f"is the forward's {role} "
                                     f"({fargs[role].type_text()}): they must agree")
        gmap = {"grad_input": "input", "grad_weight": "weight", "grad_bias": "bias"}
        for (role, _), a in zip(self.backward_results, bout):
            if role in gmap:
                src = fargs.get(gmap[role])
                if src is None:
                    raise ValueError(f"entry '{bname}' result '{a.name}' has role '{role}', "
                                     f"but entry '{fname}' has no '{gmap[role]}' argument")
                if _arg_sig(src) != _arg_sig(a):
                    raise ValueError(f"entry '{bname}' result '{a.name}' ({a.type_text()}) is "
                                     f"the gradient of the forward's {gmap[role]} "
                                     f"({src.type_text()}): they must agree")
        has_mg_arg = any(r == "main_grad" for r, _ in self.backward_args)
        has_mg_res = any(r == "main_grad" for r, _ in self.backward_results)
        if has_mg_arg != has_mg_res:
            raise ValueError(f"entry '{bname}': 'main_grad' must be both an argument and a "
                             f"result (the accumulated main_grad, written back)")
        if has_mg_res and any(r == "grad_weight" for r, _ in self.backward_results):
            raise ValueError(f"entry '{bname}': both 'grad_weight' and 'main_grad' results")
        # State buffers: one shape/dtype per name, wherever it appears.
        self.state = {}
        places = [(self.forward_args, fin, fname), (self.forward_results, fout, fname),
                  (self.backward_args, bin_, bname), (self.backward_results, bout, bname)]
        for roles, args, ename in places:
            for (role, name), a in zip(roles, args):
                if role != "state":
                    continue
                if a.is_proto:
                    raise ValueError(f"entry '{ename}' '{a.name}': state must be a tensor, "
                                     f"got {a.type_text()}")
                prev = self.state.get(name)
                if prev is not None and _arg_sig(prev) != _arg_sig(a):
                    raise ValueError(f"state '{name}': entry '{ename}' '{a.name}' "
                                     f"({a.type_text()}) disagrees with {prev.type_text()}")
                self.state.setdefault(name, a)
        for roles, args, ename in places[1::2]:
            for (role, name), a in zip(roles, args):
                if role == "state" and not any(
                        r == "state" and n == name
                        for rr in (self.forward_args, self.backward_args) for r, n in rr):
                    raise ValueError(f"entry '{ename}' result '{a.name}' updates state "
                                     f"'{name}', which no entry reads")
        for roles, args, ename in places[0::2]:
            for (role, name), a in zip(roles, args):
                if a.kind == "inout" and role != "state":
                    raise ValueError(f"entry '{ename}' argument '{a.name}' is inout (updated "
                                     f"in place): its role must be 'state:<name>', not '{role}'")
        written = {n for roles in (self.forward_results,) for r, n in roles if r == "state"}
        written |= {n for (r, n), a in zip(self.forward_args, fin)
                    if r == "state" and a.kind == "inout"}
        read_back = {n for r, n in self.backward_args if r == "state"}
        if written & read_back:
            raise ValueError(f"state {', '.join(sorted(written & read_back))}: updated by entry "
                             f"'{fname}' and read by entry '{bname}'; keep the forward's and "
                             f"the backward's state apart (TE: fwd and bwd fp8_meta)")
        self.main_grad = next((a for (r, _), a in zip(self.backward_args, bin_)
                               if r == "main_grad"), None)
        self.input = fargs["input"]
        self.weight = fargs["weight"]
        self.bias = fargs.get("bias")

    @staticmethod
    def _roles(roles, args, allowed, where):
        roles = tuple(roles)
        if len(roles) != len(args):
            raise ValueError(
                f"{where}: {len(roles)} roles ({', '.join(map(str, roles))}) for "
                f"{len(args)} values ({', '.join(a.name + ' ' + a.type_text() for a in args)})")
        return tuple(_parse_role(r, allowed, f"{where}: '{a.name}'") for r, a in zip(roles, args))

    def describe(self):
        def side(roles, args):
            return ", ".join(f"{a.name}={r if n is None else 'state:' + n}"
                             for (r, n), a in zip(roles, args))
        f, b = self.forward, self.backward
        return (f"forward {f.name}({side(self.forward_args, f.inputs)}) -> "
                f"({side(self.forward_results, f.outputs)}); backward "
                f"{b.name}({side(self.backward_args, b.inputs)}) -> "
                f"({side(self.backward_results, b.outputs)})")
