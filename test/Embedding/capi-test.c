/*===- capi-test.c - TEQ through its C API, against the installed package ===*\
|*                                                                            *|
|* Built by the consumer project against TEQ::CAPI; every line it prints is   *|
|* checked by capi.test. Registers all upstream dialects and teq in one       *|
|* registry, parses a module mixing !quant.uniform with teq ops, runs         *|
|* teq-lower-to-gemm, queries targets, recipes, quantizers and a proto type's *|
|* buffers, compiles the teq part to an artifact, and makes bad calls.        *|
|*                                                                            *|
|*   teq-capi-test input.mlir artifact.so                                     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/IR.h"
#include "mlir-c/RegisterEverything.h"
#include "teq-c/Attributes.h"
#include "teq-c/Builder.h"
#include "teq-c/Compile.h"
#include "teq-c/Dialects.h"
#include "teq-c/Passes.h"
#include "teq-c/Types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void printString(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

static MlirStringRef str(const char *text) {
  return mlirStringRefCreateFromCString(text);
}

/// Prints "<what>: ok" or "<what>: error: <message>" and frees the status.
static int report(const char *what, TeqStatus status) {
  int ok = teqStatusIsSuccess(status);
  if (ok) {
    printf("%s: ok\n", what);
  } else {
    MlirStringRef message = teqStatusGetMessage(status);
    printf("%s: error: %.*s\n", what, (int)message.length, message.data);
  }
  teqStatusDestroy(status);
  return ok;
}

static char *readFile(const char *path) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return NULL;
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  char *text = malloc((size_t)size + 1);
  if (fread(text, 1, (size_t)size, file) != (size_t)size) {
    fclose(file);
    free(text);
    return NULL;
  }
  text[size] = 0;
  fclose(file);
  return text;
}

static void printBuffers(MlirType proto, MlirAttribute target) {
  TeqBufferLayout layout;
  if (!report("buffer layout", teqProtoTypeGetBufferLayout(proto, target,
                                                           &layout)))
    return;
  printf("on ");
  teqTargetAttrGetChip(target, printString, NULL);
  printf(": %ld buffers, %lld bytes\n", (long)teqBufferLayoutGetNumBuffers(layout),
         (long long)teqBufferLayoutGetTotalBytes(layout));
  for (intptr_t i = 0; i < teqBufferLayoutGetNumBuffers(layout); ++i) {
    TeqBufferInfo info = teqBufferLayoutGetBuffer(layout, i);
    printf("  %.*s %.*s [", (int)info.name.length, info.name.data,
           (int)info.encoding.length, info.encoding.data);
    for (intptr_t d = 0; d < info.rank; ++d)
      printf("%s%lld", d ? ", " : "", (long long)info.shape[d]);
    printf("] %lld B%s%s\n", (long long)info.bytes,
           info.transposed ? " transposed" : "", info.isScale ? " scale" : "");
  }
  teqBufferLayoutDestroy(layout);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: teq-capi-test input.mlir artifact.so\n");
    return 2;
  }
  char *source = readFile(argv[1]);
  if (!source) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }

  // One registry: every upstream dialect, then teq's.
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  teqRegisterAllDialects(registry);
  MlirContext ctx = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  MlirDialectHandle teq = mlirGetDialectHandle__teq__();
  MlirStringRef ns = mlirDialectHandleGetNamespace(teq);
  printf("dialect handle: %.*s\n", (int)ns.length, ns.data);
  mlirDialectHandleLoadDialect(teq, ctx);
  MlirDialect quant = mlirContextGetOrLoadDialect(ctx, str("quant"));
  printf("quant loaded: %d\n", !mlirDialectIsNull(quant));

  // Parse, lower to GEMMs.
  MlirModule module;
  if (!report("parse", teqParseModule(ctx, str(source), str("mixed-quant.mlir"),
                                      &module)))
    return 1;
  if (!report("teq-lower-to-gemm",
              teqRunPassPipeline(module, str("teq-lower-to-gemm"))))
    return 1;
  mlirOperationPrint(mlirModuleGetOperation(module), printString, NULL);
  printf("\n");

  // Targets.
  MlirAttribute hopper, blackwell;
  report("target sm_90", teqTargetAttrGet(ctx, str("sm_90"), str(""), &hopper));
  report("target sm_100a",
         teqTargetAttrGet(ctx, str("sm_100a"), str("12.9"), &blackwell));
  printf("sm_90: sm %u fp8 %d mxfp8 %d nvfp4 %d non-tn %d\n",
         teqTargetAttrGetSM(hopper), teqTargetAttrSupportsFP8(hopper),
         teqTargetAttrSupportsMXFP8(hopper), teqTargetAttrSupportsNVFP4(hopper),
         teqTargetAttrSupportsNonTNFP8Gemm(hopper));
  MlirStringRef cuda = teqTargetAttrGetCudaVersion(blackwell);
  printf("sm_100a: sm %u suffix '%.*s' cuda %.*s mxfp8 %d non-tn %d\n",
         teqTargetAttrGetSM(blackwell),
         (int)teqTargetAttrGetSuffix(blackwell).length,
         teqTargetAttrGetSuffix(blackwell).data, (int)cuda.length, cuda.data,
         teqTargetAttrSupportsMXFP8(blackwell),
         teqTargetAttrSupportsNonTNFP8Gemm(blackwell));

  // Recipes.
  MlirAttribute delayed, mxfp8;
  report("delayed recipe",
         teqParseAttribute(ctx, str("#teq.delayed_scaling<margin = 1, "
                                    "amax_history_len = 16>"),
                           &delayed));
  MlirStringRef name = teqRecipeAttrGetName(delayed);
  printf("recipe %.*s: recipe %d, split accumulator fprop %d dgrad %d wgrad %d\n",
         (int)name.length, name.data, teqAttributeIsARecipe(delayed),
         teqRecipeAttrGetUseSplitAccumulator(delayed, TeqGemmKindFprop),
         teqRecipeAttrGetUseSplitAccumulator(delayed, TeqGemmKindDgrad),
         teqRecipeAttrGetUseSplitAccumulator(delayed, TeqGemmKindWgrad));
  mlirAttributePrint(delayed, printString, NULL);
  printf("\n");
  report("mxfp8 recipe",
         teqParseAttribute(ctx, str("#teq.mxfp8_block_scaling<>"), &mxfp8));
  bool supported = false;
  printf("mxfp8 on sm_90: ");
  report("check", teqRecipeAttrCheckTargetSupport(mxfp8, hopper, &supported,
                                                  printString, NULL));
  printf("supported %d\n", supported);
  report("mxfp8 on sm_100a", teqRecipeAttrCheckTargetSupport(
                                 mxfp8, blackwell, &supported, printString,
                                 NULL));
  printf("supported %d\n", supported);

  // Quantizers and a proto type's buffers.
  MlirAttribute quantizer;
  report("quantizer",
         teqParseAttribute(
             ctx, str("#teq.float8_current_scaling_quantizer<f8E4M3FN>"),
             &quantizer));
  MlirStringRef qname = teqQuantizerAttrGetName(quantizer);
  MlirStringRef format = teqQuantizerAttrGetFormat(quantizer);
  printf("quantizer %.*s format %.*s stateful %d data type ",
         (int)qname.length, qname.data, (int)format.length, format.data,
         teqQuantizerAttrIsStateful(quantizer));
  mlirTypePrint(teqQuantizerAttrGetDataType(quantizer), printString, NULL);
  printf("\n");
  int64_t shape[] = {128, 256};
  MlirType proto;
  report("proto type",
         teqProtoTypeGet(ctx, 2, shape, mlirBF16TypeGet(ctx), quantizer,
                         TeqUsageRowwise | TeqUsageColumnwise, false, &proto));
  mlirTypePrint(proto, printString, NULL);
  printf("\nrank %ld dims %lld x %lld usage %u\n",
         (long)teqProtoTypeGetRank(proto),
         (long long)teqProtoTypeGetDimSize(proto, 0),
         (long long)teqProtoTypeGetDimSize(proto, 1),
         teqProtoTypeGetUsage(proto));
  printBuffers(proto, hopper);
  printBuffers(proto, blackwell);
  MlirType columnwise;
  report("with usage columnwise",
         teqProtoTypeWithUsage(proto, TeqUsageColumnwise, &columnwise));
  printBuffers(columnwise, hopper);

  // Compile: the declaration with quant types is refused; without it the
  // teq function compiles into an artifact.
  TeqCompileOptions options = teqCompileOptionsGetDefault();
  report("compile with the declaration",
         teqCompileModule(module, &options, str(argv[2])));
  MlirBlock body = mlirModuleGetBody(module);
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op);) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    MlirRegion region = mlirOperationGetRegion(op, 0);
    if (mlirBlockIsNull(mlirRegionGetFirstBlock(region)))
      mlirOperationDestroy(op);
    op = next;
  }
  report("compile", teqCompileModule(module, &options, str(argv[2])));
  options.emit = str("manifest");
  fflush(stdout);
  report("compile manifest", teqCompileModule(module, &options, str("-")));

  // The builder: a Linear under an autocast region, then tanh; the value
  // used after the region leaves it through teq.yield.
  MlirModule built = mlirModuleCreateEmpty(mlirLocationUnknownGet(ctx));
  mlirOperationSetAttributeByName(mlirModuleGetOperation(built),
                                  str("teq.target"), hopper);
  int64_t xShape[] = {64, 128}, wShape[] = {256, 128};
  MlirAttribute noEncoding = {NULL};
  MlirType argTypes[] = {
      mlirRankedTensorTypeGet(2, xShape, mlirBF16TypeGet(ctx),
                              noEncoding),
      mlirRankedTensorTypeGet(2, wShape, mlirBF16TypeGet(ctx),
                              noEncoding)};
  TeqFunctionBuilder fb;
  report("builder", teqFunctionBuilderCreate(built, str("fc1"), 2, argTypes, &fb));
  MlirAttribute config, recipe;
  report("config", teqParseAttribute(ctx, str("#teq.linear<name = \"fc1\">"),
                                     &config));
  report("recipe", teqParseAttribute(ctx, str("#teq.float8_current_scaling<>"),
                                     &recipe));
  MlirValue noValue = {NULL};
  TeqLinearForwardResults linear;
  report("begin autocast", teqFunctionBuilderBeginAutocast(fb, recipe, true));
  report("linear_forward",
         teqFunctionBuilderLinearForward(
             fb, teqFunctionBuilderGetArgument(fb, 0),
             teqFunctionBuilderGetArgument(fb, 1), noValue, noValue, noValue,
             noValue, config, false, false, &linear));
  report("end autocast", teqFunctionBuilderEndAutocast(fb));
  report("end autocast again", teqFunctionBuilderEndAutocast(fb));
  MlirValue activated;
  report("tanh", teqFunctionBuilderElementwise(fb, str("math.tanh"), 1,
                                               &linear.output, &activated));
  MlirValue unused;
  report("unknown op", teqFunctionBuilderElementwise(fb, str("math.nope"), 1,
                                                     &linear.output, &unused));
  TeqLinearForwardResults wrong;
  report("mismatched Linear",
         teqFunctionBuilderLinearForward(
             fb, activated, teqFunctionBuilderGetArgument(fb, 1), noValue,
             noValue, noValue, noValue, config, false, false, &wrong));
  report("return", teqFunctionBuilderReturn(fb, 1, &activated, NULL));
  report("after return", teqFunctionBuilderEndAutocast(fb));
  teqFunctionBuilderDestroy(fb);
  mlirOperationPrint(mlirModuleGetOperation(built), printString, NULL);
  printf("\n");
  TeqFunctionBuilder again;
  report("same name", teqFunctionBuilderCreate(built, str("fc1"), 0, NULL, &again));
  mlirModuleDestroy(built);

  // Bad calls: errors with messages, never aborts.
  MlirModule none = {NULL};
  MlirContext noContext = {NULL};
  MlirAttribute attr;
  MlirType type;
  report("null context", teqParseAttribute(noContext, str("unit"), &attr));
  report("null module", teqRunPassPipeline(none, str("teq-frontend")));
  report("unknown pipeline", teqRunPassPipeline(module, str("teq-no-such-pass")));
  report("bad pipeline option",
         teqRunPassPipeline(module, str("teq-frontend{no-such-option=1}")));
  report("malformed attribute",
         teqParseAttribute(ctx, str("#teq.delayed_scaling<margin = >"), &attr));
  report("invalid recipe field",
         teqParseAttribute(ctx, str("#teq.float8_block_scaling<x_block_scaling_dim = 3>"),
                           &attr));
  report("trailing text", teqParseAttribute(ctx, str("unit unit"), &attr));
  report("bad target", teqTargetAttrGet(ctx, str("gfx942"), str(""), &attr));
  report("bad usage", teqProtoTypeGet(ctx, 2, shape, mlirBF16TypeGet(ctx),
                                      quantizer, 4, false, &type));
  report("not a quantizer", teqProtoTypeGet(ctx, 2, shape, mlirBF16TypeGet(ctx),
                                            hopper, 1, false, &type));
  report("malformed module", teqParseModule(ctx, str("module {\n  func.func @f(\n}"),
                                            str("broken.mlir"), &none));
  options = teqCompileOptionsGetDefault();
  options.emit = str("exe");
  report("bad emit", teqCompileModule(module, &options, str("x")));
  report("check with a non-recipe",
         teqRecipeAttrCheckTargetSupport(hopper, hopper, &supported, NULL, NULL));

  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  free(source);
  printf("done\n");
  return 0;
}
