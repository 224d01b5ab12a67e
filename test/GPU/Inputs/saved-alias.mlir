// A LayerNorm pair whose forward returns its own arguments x and g as saved
// tensors (the manifest's "alias_of": no buffers, no copy kernel), and an
// entry returning its two arguments and their sum. test/GPU/saved-alias.test
// runs and checks it with te-run (python-bindings/test/Inputs/saved-alias.mlir
// is the same program for the Python tests).
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @ln_fwd(%x: tensor<128x256xbf16> {teq.name = "x", teq.role = "input"},
                    %g: tensor<256xbf16> {teq.name = "g", teq.role = "parameter"},
                    %b: tensor<256xbf16> {teq.name = "b", teq.role = "parameter"})
      -> (tensor<128x256xbf16> {teq.name = "y", teq.role = "output"},
          tensor<128x256xbf16> {teq.name = "saved_x", teq.role = "saved", teq.role_of = "x"},
          tensor<128xf32> {teq.name = "mean", teq.role = "saved"},
          tensor<128xf32> {teq.name = "rstd", teq.role = "saved"},
          tensor<256xbf16> {teq.name = "saved_g", teq.role = "saved", teq.role_of = "g"}) {
    %y, %mean, %rstd = teq.layer_norm %x, %g, %b
        : (tensor<128x256xbf16>, tensor<256xbf16>, tensor<256xbf16>)
        -> (tensor<128x256xbf16>, tensor<128xf32>, tensor<128xf32>)
    return %y, %x, %mean, %rstd, %g
        : tensor<128x256xbf16>, tensor<128x256xbf16>, tensor<128xf32>, tensor<128xf32>, tensor<256xbf16>
  }
  func.func @ln_bwd(%dy: tensor<128x256xbf16> {teq.name = "dy", teq.role = "grad_output", teq.role_of = "y"},
                    %x: tensor<128x256xbf16> {teq.name = "saved_x", teq.role = "saved"},
                    %mean: tensor<128xf32> {teq.name = "mean", teq.role = "saved"},
                    %rstd: tensor<128xf32> {teq.name = "rstd", teq.role = "saved"},
                    %g: tensor<256xbf16> {teq.name = "saved_g", teq.role = "saved"})
      -> (tensor<128x256xbf16> {teq.name = "dx", teq.role = "grad", teq.role_of = "x"},
          tensor<256xbf16> {teq.name = "dg", teq.role = "grad", teq.role_of = "g"},
          tensor<256xbf16> {teq.name = "db", teq.role = "grad", teq.role_of = "b"}) {
    %dx, %dg, %db = teq.layer_norm_backward %dy, %x, %mean, %rstd, %g
        : (tensor<128x256xbf16>, tensor<128x256xbf16>, tensor<128xf32>, tensor<128xf32>, tensor<256xbf16>)
        -> (tensor<128x256xbf16>, tensor<256xbf16>, tensor<256xbf16>)
    return %dx, %dg, %db : tensor<128x256xbf16>, tensor<256xbf16>, tensor<256xbf16>
  }
  func.func @both(%a: tensor<64x128xbf16> {teq.name = "a"}, %b: tensor<64x128xbf16> {teq.name = "b"})
      -> (tensor<64x128xbf16> {teq.name = "a_out"}, tensor<64x128xbf16> {teq.name = "b_out"},
          tensor<64x128xbf16> {teq.name = "sum"}) {
    %s = arith.addf %a, %b : tensor<64x128xbf16>
    return %a, %b, %s : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>
  }
}
