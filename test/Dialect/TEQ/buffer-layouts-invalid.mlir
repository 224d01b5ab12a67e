// NVFP4 packs two E2M1 codes per byte (te-semantics.md §4.4): rowwise data
// is [*leading, K/2] and columnwise data [K, M/2] (M = prod(shape[:-1])), so
// the type verifier rejects an odd K with rowwise usage and an odd M with
// columnwise usage (K is checked first). Everything else about these shapes
// is laid out in buffer-layouts-nvfp4.mlir.

// RUN: te-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{cannot lay out a NVFP4Quantizer tensor: NVFP4 packs two E2M1 values per byte: M = 303 must be even for columnwise usage}}
func.func @f0(%a: !teq.proto<303x300xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise>) { return }

// -----

// expected-error @+1 {{cannot lay out a NVFP4Quantizer tensor: NVFP4 packs two E2M1 values per byte: M = 303 must be even for columnwise usage}}
func.func @f1(%a: !teq.proto<303x300xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>) { return }

// -----

// expected-error @+1 {{cannot lay out a NVFP4Quantizer tensor: NVFP4 packs two E2M1 values per byte: M = 1 must be even for columnwise usage}}
func.func @f2(%a: !teq.proto<1x16xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise>) { return }

// -----

// expected-error @+1 {{cannot lay out a NVFP4Quantizer tensor: NVFP4 packs two E2M1 values per byte: M = 1 must be even for columnwise usage}}
func.func @f3(%a: !teq.proto<1x16xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>) { return }

// -----

// expected-error @+1 {{cannot lay out a NVFP4Quantizer tensor: NVFP4 packs two E2M1 values per byte: K = 1 must be even for rowwise usage}}
func.func @f4(%a: !teq.proto<2333x1xf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>) { return }

// -----

// expected-error @+1 {{cannot lay out a NVFP4Quantizer tensor: NVFP4 packs two E2M1 values per byte: M = 2333 must be even for columnwise usage}}
func.func @f5(%a: !teq.proto<2333x1xf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise>) { return }

// -----

// expected-error @+1 {{cannot lay out a NVFP4Quantizer tensor: NVFP4 packs two E2M1 values per byte: K = 1 must be even for rowwise usage}}
func.func @f6(%a: !teq.proto<2333x1xf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>) { return }

// -----

// expected-error @+1 {{cannot lay out a NVFP4Quantizer tensor: NVFP4 packs two E2M1 values per byte: M = 993 must be even for columnwise usage}}
func.func @f7(%a: !teq.proto<993x512xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise>) { return }

// -----

// expected-error @+1 {{cannot lay out a NVFP4Quantizer tensor: NVFP4 packs two E2M1 values per byte: M = 993 must be even for columnwise usage}}
func.func @f8(%a: !teq.proto<993x512xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>) { return }

// -----

// expected-error @+1 {{cannot lay out a NVFP4Quantizer tensor: NVFP4 packs two E2M1 values per byte: M = 45 must be even for columnwise usage}}
func.func @f9(%a: !teq.proto<5x3x3x160xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise>) { return }

// -----

// expected-error @+1 {{cannot lay out a NVFP4Quantizer tensor: NVFP4 packs two E2M1 values per byte: M = 45 must be even for columnwise usage}}
func.func @f10(%a: !teq.proto<5x3x3x160xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>) { return }

// -----

// expected-error @+1 {{cannot lay out a NVFP4Quantizer tensor: NVFP4 packs two E2M1 values per byte: K = 7 must be even for rowwise usage}}
func.func @f11(%a: !teq.proto<4x3x7xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>) { return }

// -----

// expected-error @+1 {{cannot lay out a NVFP4Quantizer tensor: NVFP4 packs two E2M1 values per byte: K = 7 must be even for rowwise usage}}
func.func @f12(%a: !teq.proto<4x3x7xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>) { return }

// -----

// expected-error @+1 {{cannot lay out a NVFP4Quantizer tensor: NVFP4 packs two E2M1 values per byte: K = 1 must be even for rowwise usage}}
func.func @f13(%a: !teq.proto<2333x1xf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>) { return }

// -----

// expected-error @+1 {{cannot lay out a NVFP4Quantizer tensor: NVFP4 packs two E2M1 values per byte: M = 993 must be even for columnwise usage}}
func.func @f14(%a: !teq.proto<993x512xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise, gemm_swizzled>) { return }

// -----

// expected-error @+1 {{cannot lay out a NVFP4Quantizer tensor: NVFP4 packs two E2M1 values per byte: M = 1 must be even for columnwise usage}}
func.func @f15(%a: !teq.proto<1x16xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, columnwise>) { return }

// -----

// expected-error @+1 {{cannot lay out a NVFP4Quantizer tensor: NVFP4 packs two E2M1 values per byte: M = 303 must be even for columnwise usage}}
func.func @f16(%a: !teq.proto<303x300xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, rowwise|columnwise>) { return }
