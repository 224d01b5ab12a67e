//===- TEQActivationOps.td - Activation ops (GELU, SiLU, gated GLUs) -*- tablegen -*-===//
//
// Included by TEQOps.td (one generated op list for the dialect).
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_DIALECT_TEQ_IR_TEQACTIVATIONOPS_TD
#define TEQ_DIALECT_TEQ_IR_TEQACTIVATIONOPS_TD

#endif // TEQ_DIALECT_TEQ_IR_TEQACTIVATIONOPS_TD
