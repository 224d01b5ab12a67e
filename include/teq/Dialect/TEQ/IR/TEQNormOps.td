//===- TEQNormOps.td - Normalization ops (LayerNorm, RMSNorm) -*- tablegen -*-===//
//
// Included by TEQOps.td (one generated op list for the dialect).
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_DIALECT_TEQ_IR_TEQNORMOPS_TD
#define TEQ_DIALECT_TEQ_IR_TEQNORMOPS_TD

#endif // TEQ_DIALECT_TEQ_IR_TEQNORMOPS_TD
