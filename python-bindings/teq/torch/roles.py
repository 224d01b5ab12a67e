"""The roles of the arguments and results of a compiled teq.Program's
forward, backward and update entries (ProgramPair), and which entries of an
artifact form the pair."""

STATE_SUFFIXES = ("fwd_scale", "fwd_amax_history", "bwd_scale", "bwd_amax_history")
_UPDATED = ".updated"


def _sig(arg):
    """What must agree between two arguments that are one value."""
    if arg.is_proto:
        return ("proto", arg.dtype, tuple(arg.shape), arg.quantizer_kind, arg.usage,
                tuple((b.name, b.encoding, tuple(b.shape)) for b in arg.value_buffers))
    return ("tensor", arg.dtype, tuple(arg.shape))


def _name_list(values, what):
    if values is None:
        return None
    if isinstance(values, str):
        values = (values,)
    values = tuple(values)
    for v in values:
        if not isinstance(v, str):
            raise TypeError(f"{what}: expected argument names (str), got {v!r}")
    seen = set()
    for v in values:
        if v in seen:
            raise ValueError(f"{what}: '{v}' given twice")
        seen.add(v)
    return values


def _has_roles(*entries):
    """Whether the manifest gives every argument and result of the entries
    a role (an artifact compiled before roles were written gives none)."""
    values = [a for e in entries if e is not None for a in e.inputs + e.outputs]
    return bool(values) and all(getattr(a, "role", None) for a in values)


class ProgramPair:
    """The roles of the arguments and results of a compiled teq.Program's
    entries. Where the manifest gives every argument and result of the
    entries a role (its "role"/"of", docs/Artifact.md: what the compiler
    writes for a teq.Program) they are read from there, and names only
    match a saved result to the backward argument of that name; otherwise
    (older artifacts) they are inferred from the names ``Program.entries()``
    gives, as below (the roles are the same either way; the errors name
    roles or names). Needs no
    GPU and no torch (it works on ``teq.runtime.inspect``'s entries).

    Forward entry ``<name>_forward`` (or an inference entry, ``backward``
    None):

    - arguments: ``("input", name)`` (passed to Module.forward in order),
      ``("parameter", name)``, ``("state", name)`` (delayed-scaling state:
      the last name component is one of STATE_SUFFIXES, or the entry returns
      ``<name>.updated``, or it is inout);
    - results: ``("output", name)`` (the backward takes ``grad_<name>``),
      ``("saved", name)`` (the backward takes an argument of that name),
      ``("state", name)`` for ``<name>.updated``.

    Backward entry ``<name>_backward``:

    - arguments: ``("grad_output", output)`` for ``grad_<output>``,
      ``("saved", name)``, ``("main_grad", parameter)`` for
      ``<parameter>.main_grad`` (fuse_wgrad_accumulation),
      ``("state", name)``, and ``("arg", forward argument)`` for a saved
      tensor the compiler dropped from the forward's results because it is
      one of the forward's own arguments (``teq.saved_from_args``; which one
      is ``saved_from_args[name]``, else ``<linear>.weight`` for
      ``<linear>.saved_weight``, else the only forward argument of that
      type, else a ValueError);
    - results: ``("grad", name)`` for ``grad_<name>`` of an input or a
      parameter, ``("main_grad", parameter)`` when that parameter has a
      main_grad (the accumulated main_grad), ``("state", name)`` for
      ``<name>.updated``.

    Which forward arguments are parameters: ``parameters`` and ``inputs``
    (names) say so explicitly; by default the parameters are the
    (non-state) forward arguments with a ``grad_<name>`` backward result
    that are not in ``inputs``, and the inputs are the rest. An input that
    requires grad (``Program.input(..., requires_grad=True)``) must
    therefore be named in ``inputs``. Names that fit none of these are a
    ValueError naming the entry and the name.
    """

    def __init__(self, forward, backward=None, *, update=None, inputs=None, parameters=None,
                 saved_from_args=None):
        self.forward = forward
        self.backward = backward
        self.update = update
        fname = forward.name
        bname = backward.name if backward is not None else None
        inputs = _name_list(inputs, "inputs")
        parameters = _name_list(parameters, "parameters")
        saved_from_args = dict(saved_from_args or {})
        fin, fout = forward.inputs, forward.outputs
        bin_ = backward.inputs if backward is not None else []
        bout = backward.outputs if backward is not None else []
        fargs = {a.name: a for a in fin}
        fres = {a.name: a for a in fout}
        bargs = {a.name: a for a in bin_}
        bres = {a.name: a for a in bout}
        self.from_roles = _has_roles(forward, backward, update)
        hint = ("; teq.torch.Module reads the roles from the names a teq.Program gives "
                "its entries (Program.entries()); for other artifacts give the roles "
                "explicitly with teq.torch.Linear.from_artifact")

        def is_state(arg, results):
            return (arg.name.rsplit(".", 1)[-1] in STATE_SUFFIXES
                    or arg.name + _UPDATED in results or arg.kind == "inout")

        if self.from_roles:
            # The compiler wrote every role ("role"/"of"): read them.
            self._read_roles(inputs, parameters, saved_from_args, hint)
        else:
            # An older artifact: the roles from the names a teq.Program gives.
            # -- forward arguments
            grads = {a.name[5:] for a in bout if a.name.startswith("grad_")}
            state_args = [a.name for a in fin if is_state(a, fres)]
            plain = [a.name for a in fin if a.name not in state_args]
            for what, names in (("inputs", inputs), ("parameters", parameters)):
                for n in names or ():
                    if n in state_args:
                        raise ValueError(f"{what}: entry '{fname}' argument '{n}' is "
                                         f"delayed-scaling state (a module buffer)")
                    if n not in plain:
                        raise ValueError(f"{what}: entry '{fname}' has no argument '{n}' "
                                         f"(arguments: {', '.join(plain) or 'none'})")
            if inputs is not None and parameters is not None:
                both = set(inputs) & set(parameters)
                if both:
                    raise ValueError(f"{', '.join(sorted(both))}: in both inputs and parameters")
                rest = [n for n in plain if n not in inputs and n not in parameters]
                if rest:
                    raise ValueError(f"entry '{fname}' argument(s) {', '.join(rest)}: neither in "
                                     f"inputs nor in parameters")
            elif parameters is not None:
                inputs = tuple(n for n in plain if n not in parameters)
            elif inputs is not None:
                parameters = tuple(n for n in plain if n not in inputs)
            else:
                parameters = tuple(n for n in plain if n in grads)
                inputs = tuple(n for n in plain if n not in grads)
            self.forward_args = []
            for a in fin:
                if a.name in state_args:
                    role = "state"
                elif a.name in parameters:
                    role = "parameter"
                else:
                    role = "input"
                if a.is_proto:
                    raise ValueError(f"entry '{fname}' argument '{a.name}': quantized inputs "
                                     f"({a.type_text()}) are not supported by teq.torch.Module")
                self.forward_args.append((role, a.name))
            self.forward_args = tuple(self.forward_args)
            self.inputs = tuple(n for r, n in self.forward_args if r == "input")
            self.parameters = tuple(n for r, n in self.forward_args if r == "parameter")

            # -- forward results
            self.forward_results = []
            for a in fout:
                if a.name.endswith(_UPDATED) and a.name[:-len(_UPDATED)] in state_args:
                    src = fargs[a.name[:-len(_UPDATED)]]
                    if _sig(src) != _sig(a):
                        raise ValueError(f"entry '{fname}' result '{a.name}' ({a.type_text()}) "
                                         f"is the new value of '{src.name}' ({src.type_text()}): "
                                         f"they must agree")
                    self.forward_results.append(("state", src.name))
                elif backward is None:
                    self.forward_results.append(("output", a.name))
                elif "grad_" + a.name in bargs:
                    if a.name in bargs:
                        raise ValueError(f"entry '{bname}' takes both '{a.name}' and "
                                         f"'grad_{a.name}': is '{a.name}' an output or saved?")
                    self.forward_results.append(("output", a.name))
                elif a.name in bargs:
                    self.forward_results.append(("saved", a.name))
                else:
                    raise ValueError(
                        f"entry '{fname}' result '{a.name}' is not an output (entry '{bname}' "
                        f"has no argument 'grad_{a.name}'), not saved for backward (entry "
                        f"'{bname}' has no argument '{a.name}') and not a state update "
                        f"('<state argument>{_UPDATED}'){hint}")
            self.forward_results = tuple(self.forward_results)
            self.outputs = tuple(n for r, n in self.forward_results if r == "output")
            if not self.outputs:
                raise ValueError(f"entry '{fname}' has no outputs{hint}")

            # -- backward arguments
            self.backward_args = []
            self.backward_results = []
            if backward is not None:
                saved = {n for r, n in self.forward_results if r == "saved"}
                outputs = set(self.outputs)
                bstate = []
                for a in bin_:
                    n = a.name
                    if n.startswith("grad_") and n[5:] in outputs:
                        y = fres[n[5:]]
                        if _sig(y) != _sig(a):
                            raise ValueError(f"entry '{bname}' argument '{n}' ({a.type_text()}) is "
                                             f"the gradient of entry '{fname}' result '{y.name}' "
                                             f"({y.type_text()}): they must agree")
                        role = ("grad_output", n[5:])
                    elif n in saved:
                        s = fres[n]
                        if _sig(s) != _sig(a):
                            raise ValueError(f"saved tensor '{n}': entry '{fname}' returns "
                                             f"{s.type_text()}, entry '{bname}' takes "
                                             f"{a.type_text()}")
                        role = ("saved", n)
                    elif n.endswith(".main_grad") and n[:-10] in self.parameters:
                        p = fargs[n[:-10]]
                        if a.dtype != "f32" or tuple(a.shape) != tuple(p.shape) or a.is_proto:
                            raise ValueError(f"entry '{bname}' argument '{n}' ({a.type_text()}): "
                                             f"a main_grad is f32{list(p.shape)}")
                        role = ("main_grad", p.name)
                    elif is_state(a, bres):
                        if a.name in fargs and fargs[a.name].name not in state_args:
                            raise ValueError(f"entry '{bname}' argument '{n}' is state, but entry "
                                             f"'{fname}' takes it as a plain argument")
                        role = ("state", n)
                        bstate.append(n)
                    else:
                        role = ("arg", self._dropped_saved(a, fin, state_args, saved_from_args,
                                                           fname, bname, hint))
                    self.backward_args.append(role)
                extra = set(saved_from_args) - {a.name for (r, _), a in
                                                zip(self.backward_args, bin_) if r == "arg"}
                if extra:
                    raise ValueError(f"saved_from_args: entry '{bname}' has no dropped saved "
                                     f"tensor {', '.join(sorted(extra))}")
                missing = [n for n in self.outputs if ("grad_output", n) not in self.backward_args]
                if missing:
                    raise ValueError(f"entry '{bname}' takes no gradient for output(s) "
                                     f"{', '.join(missing)}")
                missing = [n for n in saved if ("saved", n) not in self.backward_args]
                if missing:  # cannot happen: saved means "a backward argument"
                    raise ValueError(f"saved results {', '.join(missing)} are not read")
                main_grads = {n for r, n in self.backward_args if r == "main_grad"}
                # -- backward results
                for a in bout:
                    n = a.name
                    if n.endswith(_UPDATED) and n[:-len(_UPDATED)] in bstate:
                        src = bargs[n[:-len(_UPDATED)]]
                        if _sig(src) != _sig(a):
                            raise ValueError(f"entry '{bname}' result '{n}' ({a.type_text()}) is "
                                             f"the new value of '{src.name}' ({src.type_text()}): "
                                             f"they must agree")
                        self.backward_results.append(("state", src.name))
                    elif n.startswith("grad_") and n[5:] in main_grads:
                        mg = bargs[n[5:] + ".main_grad"]
                        if _sig(mg) != _sig(a):
                            raise ValueError(f"entry '{bname}' result '{n}' ({a.type_text()}) is "
                                             f"the accumulated '{mg.name}' ({mg.type_text()})")
                        self.backward_results.append(("main_grad", n[5:]))
                    elif n.startswith("grad_") and n[5:] in fargs and n[5:] not in state_args:
                        src = fargs[n[5:]]
                        if _sig(src) != _sig(a):
                            raise ValueError(f"entry '{bname}' result '{n}' ({a.type_text()}) is "
                                             f"the gradient of '{src.name}' ({src.type_text()}): "
                                             f"they must agree")
                        self.backward_results.append(("grad", src.name))
                    else:
                        raise ValueError(
                            f"entry '{bname}' result '{n}' is not the gradient of an input or "
                            f"parameter of entry '{fname}' ('grad_<argument>') and not a state "
                            f"update ('<state argument>{_UPDATED}'){hint}")
                for p in main_grads:
                    if ("main_grad", p) not in self.backward_results:
                        raise ValueError(f"entry '{bname}' takes '{p}.main_grad' but returns no "
                                         f"'grad_{p}' (the accumulated main_grad)")
            self.backward_args = tuple(self.backward_args)
            self.backward_results = tuple(self.backward_results)
        self.input_grads = tuple(n for r, n in self.backward_results
                                 if r == "grad" and n in self.inputs)
        self.main_grads = tuple(n for r, n in self.backward_args if r == "main_grad")
        self.trainable = tuple(n for n in self.parameters
                               if ("grad", n) in self.backward_results
                               or ("main_grad", n) in self.backward_results)

        # -- state: one type per name
        self.state = {}
        for roles, args, ename in ((self.forward_args, fin, fname),
                                   (self.backward_args, bin_, bname)):
            for (role, n), a in zip(roles, args):
                if role != "state":
                    continue
                prev = self.state.get(n)
                if prev is not None and _sig(prev) != _sig(a):
                    raise ValueError(f"state '{n}': entry '{ename}' takes {a.type_text()}, "
                                     f"elsewhere {prev.type_text()}")
                self.state.setdefault(n, a)
        written = {n for r, n in self.forward_results if r == "state"}
        read_back = {n for r, n in self.backward_args if r == "state"}
        if written & read_back:
            raise ValueError(f"state {', '.join(sorted(written & read_back))}: updated by entry "
                             f"'{fname}' and read by entry '{bname}'")
        # -- the update entry (DelayedScaling: TE's update step), state only
        self.update_args = self.update_results = ()
        if update is not None:
            uname = update.name
            for a in update.inputs:
                if self.from_roles and a.role != "state":
                    raise ValueError(f"entry '{uname}' argument '{a.name}' has role "
                                     f"'{a.role}', not state")
                if a.name not in self.state:
                    raise ValueError(f"entry '{uname}' argument '{a.name}' is not state of "
                                     f"entries '{fname}'/'{bname}' (state: "
                                     f"{', '.join(self.state) or 'none'})")
                if _sig(a) != _sig(self.state[a.name]):
                    raise ValueError(f"entry '{uname}' argument '{a.name}' ({a.type_text()}) "
                                     f"disagrees with {self.state[a.name].type_text()}")
            names = {a.name for a in update.inputs}
            results = []
            for a in update.outputs:
                if self.from_roles:
                    src = a.role_of if a.role == "state_update" else None
                else:
                    src = a.name[:-len(_UPDATED)] if a.name.endswith(_UPDATED) else None
                if src not in names:
                    if self.from_roles:
                        raise ValueError(f"entry '{uname}' result '{a.name}' (role {a.role}"
                                         f"{' of ' + a.role_of if a.role_of else ''}) is not the "
                                         f"state_update of one of its arguments")
                    raise ValueError(f"entry '{uname}' result '{a.name}' is not "
                                     f"'<state argument>{_UPDATED}'{hint}")
                if _sig(a) != _sig(self.state[src]):
                    raise ValueError(f"entry '{uname}' result '{a.name}' ({a.type_text()}) "
                                     f"disagrees with '{src}'")
                results.append(src)
            self.update_args = tuple(a.name for a in update.inputs)
            self.update_results = tuple(results)

    def _read_roles(self, inputs, parameters, saved_from_args, hint):
        """The roles the manifest gives ("role"/"of"), checked as the names'
        are: each value of one role agrees with what it is of."""
        forward, backward = self.forward, self.backward
        fname = forward.name
        bname = backward.name if backward is not None else None
        fin, fout = forward.inputs, forward.outputs
        fargs = {a.name: a for a in fin}
        fres = {a.name: a for a in fout}

        def bad(entry, what, a, expected):
            raise ValueError(f"entry '{entry}' {what} '{a.name}' has role '{a.role}'"
                             f"{' of ' + repr(a.role_of) if a.role_of else ''} (expected "
                             f"{expected})")

        def agree(a, src, what):
            if _sig(src) != _sig(a):
                raise ValueError(f"'{a.name}' ({a.type_text()}) is {what} '{src.name}' "
                                 f"({src.type_text()}): they must agree")

        # -- forward arguments
        for a in fin:
            if a.role not in ("input", "parameter", "state"):
                bad(fname, "argument", a, "input, parameter or state")
            if a.is_proto:
                raise ValueError(f"entry '{fname}' argument '{a.name}': quantized inputs "
                                 f"({a.type_text()}) are not supported by teq.torch.Module")
        state_args = [a.name for a in fin if a.role == "state"]
        plain = [a.name for a in fin if a.role != "state"]
        for what, names in (("inputs", inputs), ("parameters", parameters)):
            for n in names or ():
                if n in state_args:
                    raise ValueError(f"{what}: entry '{fname}' argument '{n}' is "
                                     f"delayed-scaling state (a module buffer)")
                if n not in plain:
                    raise ValueError(f"{what}: entry '{fname}' has no argument '{n}' "
                                     f"(arguments: {', '.join(plain) or 'none'})")
        # Names given explicitly move arguments between inputs and parameters.
        if parameters is not None:
            params = set(parameters)
            if inputs is not None and set(inputs) & params:
                raise ValueError(f"{', '.join(sorted(set(inputs) & params))}: in both "
                                 f"inputs and parameters")
            rest = [n for n in plain if inputs is not None and n not in inputs
                    and n not in params]
            if rest:
                raise ValueError(f"entry '{fname}' argument(s) {', '.join(rest)}: neither in "
                                 f"inputs nor in parameters")
        elif inputs is not None:
            params = set(plain) - set(inputs)
        else:
            params = {a.name for a in fin if a.role == "parameter"}
        self.forward_args = tuple(
            ("state" if a.role == "state" else "parameter" if a.name in params else "input",
             a.name) for a in fin)
        self.inputs = tuple(n for r, n in self.forward_args if r == "input")
        self.parameters = tuple(n for r, n in self.forward_args if r == "parameter")

        # -- forward results
        results = []
        for a in fout:
            if a.role == "state_update":
                if a.role_of not in state_args:
                    bad(fname, "result", a, "the state_update of a state argument")
                agree(a, fargs[a.role_of], "the new value of")
                results.append(("state", a.role_of))
            elif a.role == "output":
                results.append(("output", a.name))
            elif a.role == "saved" and backward is not None:
                results.append(("saved", a.name))
            else:
                bad(fname, "result", a, "output, state_update"
                    + (" or saved" if backward is not None else ""))
        self.forward_results = tuple(results)
        self.outputs = tuple(n for r, n in results if r == "output")
        if not self.outputs:
            raise ValueError(f"entry '{fname}' has no outputs{hint}")

        # -- backward
        self.backward_args = self.backward_results = ()
        if backward is None:
            return
        self.backward_args, self.backward_results = [], []
        saved = {n for r, n in results if r == "saved"}
        bstate = []
        for a in backward.inputs:
            if a.role == "grad_output":
                if a.role_of not in self.outputs:
                    bad(bname, "argument", a, f"the grad_output of an output of entry '{fname}'")
                agree(a, fres[a.role_of], "the gradient of")
                role = ("grad_output", a.role_of)
            elif a.role == "saved" and a.name in saved:
                agree(a, fres[a.name], "the saved")
                role = ("saved", a.name)
            elif a.role == "saved":
                # Not a forward result: the forward argument the compiler
                # dropped it as (teq.saved_from_args).
                if a.role_of:
                    if a.role_of not in plain:
                        bad(bname, "argument", a, f"saved of an argument of entry '{fname}'")
                    agree(a, fargs[a.role_of], "the saved")
                    role = ("arg", a.role_of)
                else:
                    role = ("arg", self._dropped_saved(a, fin, state_args, saved_from_args,
                                                       fname, bname, hint))
            elif a.role == "main_grad":
                p = fargs.get(a.role_of)
                if a.role_of not in self.parameters:
                    bad(bname, "argument", a, "the main_grad of a parameter")
                if a.dtype != "f32" or tuple(a.shape) != tuple(p.shape) or a.is_proto:
                    raise ValueError(f"entry '{bname}' argument '{a.name}' ({a.type_text()}): "
                                     f"a main_grad is f32{list(p.shape)}")
                role = ("main_grad", p.name)
            elif a.role == "state":
                if a.name in fargs and a.name not in state_args:
                    raise ValueError(f"entry '{bname}' argument '{a.name}' is state, but entry "
                                     f"'{fname}' takes it as a plain argument")
                role = ("state", a.name)
                bstate.append(a.name)
            else:
                bad(bname, "argument", a, "grad_output, saved, main_grad or state")
            self.backward_args.append(role)
        extra = set(saved_from_args) - {a.name for (r, _), a in
                                        zip(self.backward_args, backward.inputs) if r == "arg"}
        if extra:
            raise ValueError(f"saved_from_args: entry '{bname}' has no dropped saved "
                             f"tensor {', '.join(sorted(extra))}")
        missing = [n for n in self.outputs if ("grad_output", n) not in self.backward_args]
        if missing:
            raise ValueError(f"entry '{bname}' takes no gradient for output(s) "
                             f"{', '.join(missing)}")
        main_grads = {n: a for (r, n), a in zip(self.backward_args, backward.inputs)
                      if r == "main_grad"}
        bargs = {a.name: a for a in backward.inputs}
        for a in backward.outputs:
            if a.role == "state_update":
                if a.role_of not in bstate:
                    bad(bname, "result", a, "the state_update of a state argument")
                agree(a, bargs[a.role_of], "the new value of")
                self.backward_results.append(("state", a.role_of))
            elif a.role == "main_grad":
                if a.role_of not in main_grads:
                    bad(bname, "result", a, "the main_grad of a parameter it takes one of")
                agree(a, main_grads[a.role_of], "the accumulated")
                self.backward_results.append(("main_grad", a.role_of))
            elif a.role == "grad":
                if a.role_of not in plain:
                    bad(bname, "result", a, f"the grad of an argument of entry '{fname}'")
                agree(a, fargs[a.role_of], "the gradient of")
                self.backward_results.append(("grad", a.role_of))
            else:
                bad(bname, "result", a, "grad, main_grad or state_update")
        for p in main_grads:
            if ("main_grad", p) not in self.backward_results:
                raise ValueError(f"entry '{bname}' takes a main_grad of '{p}' but returns "
                                 f"no accumulated main_grad of it")
        self.backward_args = tuple(self.backward_args)
        self.backward_results = tuple(self.backward_results)

    @staticmethod
    def _dropped_saved(arg, fin, state_args, given, fname, bname, hint):
        """The forward argument a saved tensor the compiler dropped is."""
        n = arg.name
        candidates = [a for a in fin if a.name not in state_args and _sig(a) == _sig(arg)]
        if n in given:
            src = next((a for a in fin if a.name == given[n]), None)
            if src is None or src.name in state_args:
                raise ValueError(f"saved_from_args: '{n}' -> '{given[n]}': entry '{fname}' has "
                                 f"no such argument")
            if _sig(src) != _sig(arg):
                raise ValueError(f"saved_from_args: entry '{bname}' argument '{n}' "
                                 f"({arg.type_text()}) cannot be entry '{fname}' argument "
                                 f"'{src.name}' ({src.type_text()})")
            return src.name
        if n.endswith(".saved_weight"):
            w = n[:-len(".saved_weight")] + ".weight"
            match = [a for a in candidates if a.name == w]
            if match:
                return w
        if len(candidates) == 1:
            return candidates[0].name
        raise ValueError(
            f"entry '{bname}' argument '{n}' ({arg.type_text()}) is not a gradient, a saved "
            f"result of entry '{fname}', a main_grad or state; if it is a saved tensor the "
            f"compiler dropped because it is one of entry '{fname}''s arguments, say which with "
            f"saved_from_args={{'{n}': <argument>}} (candidates: "
            f"{', '.join(a.name for a in candidates) or 'none of that type'}){hint}")

    # Entries are shared, not copied (nn.Module deepcopy).
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def roles(self):
        """{entry name: {"args": ((role, name), ...), "results": (...)}}."""
        out = {self.forward.name: {"args": self.forward_args,
                                   "results": self.forward_results}}
        if self.backward is not None:
            out[self.backward.name] = {"args": self.backward_args,
                                       "results": self.backward_results}
        if self.update is not None:
            out[self.update.name] = {"args": tuple(("state", n) for n in self.update_args),
                                     "results": tuple(("state", n)
                                                      for n in self.update_results)}
        return out

    def describe(self):
        def side(roles, args):
            return ", ".join(f"{a.name}={r}" + ("" if n == a.name else f":{n}")
                             for (r, n), a in zip(roles, args))
        text = (f"{self.forward.name}({side(self.forward_args, self.forward.inputs)}) -> "
                f"({side(self.forward_results, self.forward.outputs)})")
        if self.backward is not None:
            text += (f"; {self.backward.name}("
                     f"{side(self.backward_args, self.backward.inputs)}) -> "
                     f"({side(self.backward_results, self.backward.outputs)})")
        return text


def _pick_entries(art, forward, backward, update=None):
    names = list(art.entries)
    if forward is None:
        pairs = [n for n in names if n.endswith("_forward") and n[:-8] + "_backward" in names]
        # An inference program: its entry (and maybe <name>_update).
        single = [n for n in names if not (n.endswith("_update") and n[:-7] in names)]
        if len(pairs) == 1:
            forward = pairs[0]
        elif not pairs and len(single) == 1:
            forward = single[0]
        else:
            raise ValueError(f"artifact '{art.path}': name the forward entry (entries: "
                             f"{', '.join(names)}; a teq.Program's are <name>_forward and "
                             f"<name>_backward)")
    fwd = art[forward]
    if backward is None and forward.endswith("_forward") and forward[:-8] + "_backward" in names:
        backward = forward[:-8] + "_backward"
    bwd = art[backward] if backward is not None else None
    if update is None:
        stem = forward[:-8] if forward.endswith("_forward") else forward
        update = stem + "_update" if stem + "_update" in names else None
    upd = art[update] if update else None
    return fwd, bwd, upd


def _program_saved_from_args(program, art, fwd, bwd):
    """{backward argument: forward argument} for the saved tensors the
    compiler dropped because they are the forward's own arguments."""
    if bwd is None:
        return {}
    returned = {a.name for a in art[fwd].outputs}
    wanted = {a.name for a in art[bwd].inputs} - returned
    args = {t.name for t in program._inputs + program._params}
    found = {}
    for op in program._ops:
        if op.kind == "linear":
            slots = {f"{op.config['name']}.saved_input": op.operands[0],
                     f"{op.config['name']}.saved_weight": op.config["weight"]}
        elif op.kind == "arith.mulf":
            slots = {f"{op.result.name}.lhs": op.operands[0],
                     f"{op.result.name}.rhs": op.operands[1]}
        else:
            continue
        for saved, tensor in slots.items():
            if saved in wanted and tensor.name in args:
                found[saved] = tensor.name
    return found
