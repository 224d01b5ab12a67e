; LLVM lowers fptrunc to bfloat on x86 to a call of the compiler runtime's
; __truncsfbf2, which the system's libgcc may lack: forward it to the
; reference's RNE conversion (NVFP4SREmulationTest.cpp).
declare i16 @teq_emu_float_to_bf16(float)
define bfloat @__truncsfbf2(float %f) {
  %b = call i16 @teq_emu_float_to_bf16(float %f)
  %r = bitcast i16 %b to bfloat
  ret bfloat %r
}
