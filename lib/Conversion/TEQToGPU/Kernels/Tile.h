//===- Tile.h - The register-resident 128x128 tile kernels ------*- C++ -*-===//
//
// What the block FP8 (te-semantics.md §5.3) and MXFP8 (§5.4) kernels share:
// one 128x128 tile of the input per 256-thread block, read once into
// registers. Warp w owns tile rows 16w..16w+15; lane l holds the 16 columns
// from 16 (l % 8) of rows 16w + l / 8 + 4p for the four row steps
// p = 0..3. Every access is a 16-byte vector where the shape allows it and
// element by element (bounds-checked) elsewhere.
//
// bf16 tiles keep their raw bits (32 registers, not 64, across barriers)
// and widen them again in each phase; the phases use different but exact
// forms of the widening (TileWidening) so that LLVM does not merge them
// into one long-lived value.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_TILE_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_TILE_H

#include "KernelBuilder.h"

#include <array>

namespace mlir::teq::kernels {

/// Tile rows a thread holds (row steps), and its columns per row.
constexpr int kTileRowSteps = 4;
constexpr int64_t kTileThreadColumns = 16;

/// The buffers of a tile kernel: the input [M, K], and per usage the FP8
/// data and its scales (null where the usage is not asked for).
struct TileBuffers {
  Value input;
  Value rowData, rowScale;
  Value colData, colScale;
  /// (%x, [%rdata, %rscale], [%cdata, %cscale]): the kernels' arguments.
  llvm::SmallVector<Value> arguments() const;
};

/// A tile kernel `name` with the launch of one block per 128x128 tile
/// (grid ceil(K/128) x ceil(M/128), no dynamic shared memory).
/// `minBlocksPerSM` (0: none) asks the register allocator to leave room for
/// that many blocks an SM (nvvm.minctasm).
struct TileKernel {
  gpu::GPUFuncOp func;
  KernelLaunch launch;
};
TileKernel createTileKernel(ImplicitLocOpBuilder &b, gpu::GPUModuleOp module,
                            llvm::StringRef name, const TileBuffers &buffers,
                            int64_t rows, int64_t cols, int64_t minBlocksPerSM);

/// A 16-byte-aligned workgroup buffer `memref<size x element>` of `kernel`.
Value addTileWorkgroupBuffer(gpu::GPUFuncOp kernel, Type element, int64_t size);

/// The tile kernels' arguments: (%x, [%rdata, %rscale], [%cdata, %cscale]),
/// the copies present as the spec says.
struct TileKernelArgs {
  Value x, rowData, rowScale, colData, colScale;
};
TileKernelArgs tileKernelArgs(Block *body, bool rowwise, bool columnwise);

/// The thread's view of its tile and the four rows it loaded.
struct RegisterTile {
  InputType input = InputType::BF16;
  int64_t rows = 0, cols = 0;

  Value threadId, blockX, blockY;
  /// First tensor row and column of the tile.
  Value tileRow0, tileCol0;
  Value lane, warp;
  /// Which 16-column chunk of its row the lane holds (lane % 8), the chunk's
  /// first tile column (16 chunk) and tensor column.
  Value chunk, chunkCol, globalCol;
  /// The chunk lies inside the tensor's columns.
  Value chunkInside;
  /// Tile row of row step 0 (16 warp + lane / 8).
  Value rowBase;
  /// Lanes 0..7 (one per chunk of the warp's first row).
  Value chunkWriter;
  /// chunk == 0: the first lane of its row.
  Value firstChunk;
  /// 128 warp: the warp's slot row in column-partial buffers.
  Value warpSlots;

  /// Per row step: tile row, tensor row, whether it is inside the tensor,
  /// offset of the row's start and of the thread's chunk.
  std::array<Value, kTileRowSteps> row, globalRow, rowInside, rowStart, offset;
  /// bf16: the raw bits of the chunk (vector<8xi32>). Other inputs: unset.
  std::array<Value, kTileRowSteps> raw;
  /// The chunk as vector<16xf32>: loaded (f32, f16) or, for bf16, set by
  /// accumulateColumnMax.
  std::array<Value, kTileRowSteps> values;
  /// The running |x| maximum per column over the row steps accumulated so
  /// far (vector<16xf32>).
  Value columnMax;

  bool keepsRawBits() const { return input == InputType::BF16; }
};

/// Thread and tile ids, then the four rows' loads of `x` (memref<M*K x T>):
/// all 16-byte loads where every chunk is whole and `cols` % 8 == 0, else
/// element by element, zeros outside the tensor.
RegisterTile loadRegisterTile(ImplicitLocOpBuilder &b, Value x, int64_t rows,
                              int64_t cols, InputType input);

/// Row step `step` joins the column maxima (RegisterTile::columnMax): bf16
/// widens its bits by fpext first (setting values[step]).
void accumulateColumnMax(ImplicitLocOpBuilder &b, RegisterTile &tile, int step);

/// How a phase after a barrier widens bf16 bits again (exact either way).
enum class TileWidening {
  /// Low halves shifted, high halves masked, interleaved.
  Interleave,
  /// 16-bit lanes zero-extended and shifted.
  ZeroExtend,
};
/// Row step `step` as vector<16xf32>: widened from the raw bits (bf16) or
/// the loaded values.
Value tileRowValues(ImplicitLocOpBuilder &b, const RegisterTile &tile, int step,
                    TileWidening form = TileWidening::Interleave);

/// Stores `bytes` (vector<16xi8>) of row step `step` into `dest`
/// (memref<M*K x i8>) at the thread's chunk: one 16-byte store where the
/// chunk is whole and `vectorOK`, else byte by byte inside the tensor.
void storeTileRow(ImplicitLocOpBuilder &b, const RegisterTile &tile, int step,
                  Value bytes, Value dest, Value vectorOK);

/// Per column of the thread's chunk, the maximum of columnMax over the
/// warp's 16 rows (xor shuffles), stored by lanes 0..7 into `partials`
/// [128 warp + column] (workgroup memref<1024xf32>).
void storeColumnPartials(ImplicitLocOpBuilder &b, const RegisterTile &tile,
                         Value partials);

/// The maximum of f32 `value` over the lanes `lane ^ o` for o in `offsets`
/// (xor shuffles, in order): the block of lanes those offsets span.
Value xorShuffleMax(ImplicitLocOpBuilder &b, Value value,
                    llvm::ArrayRef<int32_t> offsets);

/// The transposed FP8 copy [K, M] of the tile from each row step's bytes
/// `bytes` (vector<16xi8>), through `stage` (workgroup memref<16384xi8>):
/// staged row by row (16-byte chunks XOR-swizzled by row / 16, free of bank
/// conflicts both ways), then gathered along columns and stored as 16-byte
/// runs of the output rows where whole and M % 16 == 0.
void storeTransposedTile(ImplicitLocOpBuilder &b, const RegisterTile &tile,
                         llvm::ArrayRef<Value> bytes, Value stage, Value dest);

} // namespace mlir::teq::kernels

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_TILE_H
