//===- TileKernelEmulationTest.cpp - Block FP8 / MXFP8 kernels on the CPU -===//
//
// Runs the very IR of the block FP8 (`_block`) and MXFP8 (`_mxfp8`) tile
// kernels that convert-teq-to-gpu generates for TileKernels.mlir on the CPU
// and compares every output byte (data, scales and their padding) with the
// CPU reference (lib/Reference).
//
// The kernels synchronize (gpu.barrier, gpu.shuffle) and use workgroup
// memory, so te-opt --teq-test-kernels-to-cpu=per-thread turns each into a
// function of one thread (plus its workgroup buffers, dynamic shared memory
// and block ids) whose barriers and shuffles call back here. Each thread of a block runs as
// a fiber (ucontext); a fiber that reaches a barrier or a shuffle yields.
// A barrier is released when every thread of the block waits on it, a
// shuffle when every thread of the warp waits on it (each gets its partner's
// value, as shfl.sync.bfly). Mismatched barriers (a thread that exits or
// shuffles while others wait at a barrier) fail the test. Workgroup memory
// starts as garbage (0xA5) in each block, as do the output buffers (every
// byte must be written), except scale buffers that the entry zero-fills
// with its own kernels before the tile kernel.
//
//===----------------------------------------------------------------------===//

#include "teq/Reference/Quantize.h"

#include <gtest/gtest.h>

#include <ucontext.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace mlir::teq;
using namespace mlir::teq::reference;

namespace {

/// A rank-1 memref descriptor (llvm.emit_c_interface).
struct MemRef1D {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t size;
  int64_t stride;
};
MemRef1D memref(void *data, int64_t size) {
  return MemRef1D{data, data, 0, size, 1};
}

constexpr int kThreads = 256;

enum class State { Runnable, AtBarrier, AtShuffle, Done };

struct Scheduler {
  ucontext_t main;
  ucontext_t ctx[kThreads];
  State state[kThreads];
  float in[kThreads], out[kThreads];
  int partner[kThreads];
  int current = 0;
  void *fn = nullptr;
  std::vector<MemRef1D> *args = nullptr;
  int64_t bx = 0, by = 0;
  std::vector<char> stacks;
};
Scheduler *sched = nullptr;

template <size_t... I>
void invokeN(void *fn, MemRef1D *a, int64_t bx, int64_t by, int64_t t,
             std::index_sequence<I...>) {
  using Fn = void (*)(decltype((void)I, (MemRef1D *)nullptr)..., int64_t,
                      int64_t, int64_t);
  reinterpret_cast<Fn>(fn)((a + I)..., bx, by, t);
}
template <size_t N>
void invokeFixed(void *fn, MemRef1D *a, int64_t bx, int64_t by, int64_t t) {
  invokeN(fn, a, bx, by, t, std::make_index_sequence<N>());
}

void invoke(void *fn, std::vector<MemRef1D> &a, int64_t bx, int64_t by,
            int64_t t) {
  using Call = void (*)(void *, MemRef1D *, int64_t, int64_t, int64_t);
  static const Call table[] = {
      nullptr,         nullptr,         invokeFixed<2>,  invokeFixed<3>,
      invokeFixed<4>,  invokeFixed<5>,  invokeFixed<6>,  invokeFixed<7>,
      invokeFixed<8>,  invokeFixed<9>,  invokeFixed<10>, invokeFixed<11>,
      invokeFixed<12>, invokeFixed<13>, invokeFixed<14>, invokeFixed<15>,
      invokeFixed<16>};
  if (a.size() >= sizeof(table) / sizeof(table[0]) || !table[a.size()]) {
    fprintf(stderr, "unsupported kernel arity %zu\n", a.size());
    abort();
  }
  table[a.size()](fn, a.data(), bx, by, t);
}

void fiberMain() {
  int t = sched->current;
  invoke(sched->fn, *sched->args, sched->bx, sched->by, t);
  sched->state[t] = State::Done;
}

} // namespace

extern "C" {
/// nvvm.convert.f32x2.to.f8x2 (rn, satfinite): `a` in the upper byte.
int16_t emu_e4m3(float a, float b) {
  return static_cast<int16_t>((static_cast<uint16_t>(floatToE4M3(a)) << 8) |
                              floatToE4M3(b));
}
int16_t emu_e5m2(float a, float b) {
  return static_cast<int16_t>((static_cast<uint16_t>(floatToE5M2(a)) << 8) |
                              floatToE5M2(b));
}
uint16_t teq_emu_float_to_bf16(float value) { return floatToBF16(value); }

void emu_barrier() {
  int t = sched->current;
  sched->state[t] = State::AtBarrier;
  swapcontext(&sched->ctx[t], &sched->main);
}

float emu_shfl_xor(float value, int32_t offset, int32_t width) {
  int t = sched->current;
  int lane = t % 32;
  int other = lane ^ offset;
  sched->in[t] = value;
  sched->partner[t] = other < width ? t - lane + other : t;
  sched->state[t] = State::AtShuffle;
  swapcontext(&sched->ctx[t], &sched->main);
  return sched->out[t];
}

#define TEQ_TILE_KERNEL(name) void _mlir_ciface_##name();
#include "tile_kernel_cases.inc"
#undef TEQ_TILE_KERNEL
}

namespace {

/// Runs block (bx, by) of a launch; returns an error message or "".
std::string runBlock(void *fn, std::vector<MemRef1D> &args, int64_t bx,
                     int64_t by) {
  constexpr size_t kStack = 256 * 1024;
  Scheduler &s = *sched;
  s.fn = fn;
  s.args = &args;
  s.bx = bx;
  s.by = by;
  if (s.stacks.empty())
    s.stacks.resize(kStack * kThreads);
  for (int t = 0; t < kThreads; ++t) {
    getcontext(&s.ctx[t]);
    s.ctx[t].uc_stack.ss_sp = s.stacks.data() + kStack * t;
    s.ctx[t].uc_stack.ss_size = kStack;
    s.ctx[t].uc_link = &s.main;
    makecontext(&s.ctx[t], fiberMain, 0);
    s.state[t] = State::Runnable;
  }
  for (;;) {
    for (int t = 0; t < kThreads; ++t) {
      if (s.state[t] != State::Runnable)
        continue;
      s.current = t;
      swapcontext(&s.main, &s.ctx[t]);
    }
    int done = 0, barrier = 0;
    for (int t = 0; t < kThreads; ++t) {
      done += s.state[t] == State::Done;
      barrier += s.state[t] == State::AtBarrier;
    }
    if (done == kThreads)
      return "";
    bool released = false;
    for (int w = 0; w < kThreads / 32; ++w) {
      bool all = true;
      for (int l = 0; l < 32; ++l)
        all &= s.state[w * 32 + l] == State::AtShuffle;
      if (!all)
        continue;
      for (int l = 0; l < 32; ++l) {
        int t = w * 32 + l;
        s.out[t] = s.in[s.partner[t]];
      }
      for (int l = 0; l < 32; ++l)
        s.state[w * 32 + l] = State::Runnable;
      released = true;
    }
    if (released)
      continue;
    if (barrier == kThreads) {
      for (int t = 0; t < kThreads; ++t)
        s.state[t] = State::Runnable;
      continue;
    }
    return "threads of block (" + std::to_string(bx) + ", " +
           std::to_string(by) + ") wait on different barriers/shuffles (" +
           std::to_string(done) + " exited, " + std::to_string(barrier) +
           " at a barrier)";
  }
}

struct Case {
  const char *name;
  void (*kernel)();
  int numArgs;                    ///< Kernel arguments (x and the outputs).
  std::vector<int64_t> workgroup; ///< Bytes of each workgroup buffer.
  std::vector<int64_t> shape;
  DType dtype;
  layout::Format format;
  bool e5m2, rowwise, columnwise, swizzled, pow2;
  float epsilon;
  bool twoD, zeroRowScales, zeroColScales;
};

const Case kCases[] = {
#include "tile_kernel_cases.inc"
};

enum class Fill { Normal, Special, Tiny, Huge, Zeros, Ties };

std::vector<float> makeValues(int64_t n, Fill fill, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-20, 20);
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) {
    switch (fill) {
    case Fill::Normal: // Rows/blocks of very different magnitudes.
      v[i] = normal(gen) * (i % 977 < 40 ? std::ldexp(1.0f, exponent(gen)) : 1.0f);
      break;
    case Fill::Special:
      v[i] = normal(gen) * 3.0f;
      break;
    case Fill::Tiny:
      v[i] = normal(gen) * 1e-39f;
      break;
    case Fill::Huge:
      v[i] = normal(gen) * 1e37f;
      break;
    case Fill::Zeros:
      v[i] = (i % 7 == 0) ? -0.0f : 0.0f;
      break;
    case Fill::Ties: // FP8 midpoints after power-of-two scales.
      v[i] = (static_cast<float>(static_cast<int>(i % 61) - 30) + 0.5f) *
             std::ldexp(1.0f, static_cast<int>(i % 5) - 2);
      break;
    }
  }
  if (fill == Fill::Special && v.size() > 40) {
    const float inf = std::numeric_limits<float>::infinity();
    v[3] = inf;
    v[v.size() / 2 + 7] = -inf;
    v[11] = std::numeric_limits<float>::quiet_NaN();
    v[20] = 1e30f;
    v[21] = -0.0f;
    v[v.size() - 1] = -1e-3f;
  }
  return v;
}

std::vector<uint8_t> inputBytes(const Input &x) {
  std::vector<uint8_t> bytes;
  for (float value : x.values) {
    if (x.dtype == DType::F32) {
      uint8_t b[4];
      std::memcpy(b, &value, 4);
      bytes.insert(bytes.end(), b, b + 4);
      continue;
    }
    uint16_t h = x.dtype == DType::BF16 ? floatToBF16(value) : floatToF16(value);
    bytes.push_back(static_cast<uint8_t>(h));
    bytes.push_back(static_cast<uint8_t>(h >> 8));
  }
  return bytes;
}

int64_t firstDifference(const std::vector<uint8_t> &a,
                        const std::vector<uint8_t> &b) {
  if (a.size() != b.size())
    return 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i])
      return static_cast<int64_t>(i);
  return -1;
}

void runCase(const Case &c, Fill fill, unsigned seed) {
  int64_t n = 1;
  for (int64_t d : c.shape)
    n *= d;
  Input x = Input::rounded(c.dtype, c.shape, makeValues(n, fill, seed));
  layout::TensorDesc desc;
  desc.shape = c.shape;
  desc.format = c.format;
  desc.dataEncoding = c.e5m2 ? layout::Encoding::E5M2 : layout::Encoding::E4M3;
  desc.usage = (c.rowwise ? layout::UsageRowwise : 0u) |
               (c.columnwise ? layout::UsageColumnwise : 0u);
  desc.scaleLayout = c.swizzled ? layout::ScaleLayout::GemmSwizzled
                                : layout::ScaleLayout::Compact;
  QuantizeOptions options;
  options.blockFP8.forcePow2Scales = c.pow2;
  options.blockFP8.amaxEpsilon = c.epsilon;
  options.mxfp8.twoD = c.twoD;
  auto expected = quantize(x, desc, layout::TargetCaps::fromSM(90), options);
  ASSERT_TRUE(expected.ok()) << expected.message();

  std::vector<uint8_t> input = inputBytes(x);
  std::vector<std::string> names;
  if (c.rowwise)
    names.insert(names.end(), {"rowwise_data", "rowwise_scale_inv"});
  if (c.columnwise)
    names.insert(names.end(), {"columnwise_data", "columnwise_scale_inv"});
  ASSERT_EQ(static_cast<int>(names.size()) + 1, c.numArgs) << c.name;
  std::vector<std::vector<uint8_t>> got;
  for (const std::string &name : names) {
    const Buffer *b = expected->find(name);
    ASSERT_TRUE(b) << name;
    bool zero = name == "rowwise_scale_inv"      ? c.zeroRowScales
                : name == "columnwise_scale_inv" ? c.zeroColScales
                                                 : false;
    got.emplace_back(b->bytes.size(), zero ? 0 : 0xA5);
  }
  std::vector<MemRef1D> args;
  args.push_back(memref(input.data(), n));
  for (auto &g : got)
    args.push_back(memref(g.data(), static_cast<int64_t>(g.size())));
  std::vector<std::vector<uint8_t>> workgroup;
  for (int64_t bytes : c.workgroup)
    workgroup.emplace_back(bytes, 0xA5);
  std::vector<uint8_t> dynamic(228 * 1024);
  for (auto &w : workgroup)
    args.push_back(memref(w.data(), static_cast<int64_t>(w.size())));
  args.push_back(memref(dynamic.data(), static_cast<int64_t>(dynamic.size())));

  const int64_t k = c.shape.back(), m = n / k;
  Scheduler s;
  sched = &s;
  for (int64_t by = 0; by * 128 < m; ++by)
    for (int64_t bx = 0; bx * 128 < k; ++bx) {
      for (auto &w : workgroup)
        std::fill(w.begin(), w.end(), 0xA5);
      std::fill(dynamic.begin(), dynamic.end(), 0xA5);
      std::string error =
          runBlock(reinterpret_cast<void *>(c.kernel), args, bx, by);
      ASSERT_EQ(error, "") << c.name;
    }
  sched = nullptr;

  for (size_t b = 0; b < names.size(); ++b) {
    const Buffer &ref = *expected->find(names[b]);
    int64_t at = firstDifference(ref.bytes, got[b]);
    EXPECT_EQ(at, -1) << c.name << " fill " << static_cast<int>(fill) << ": "
                      << names[b] << " byte " << at << " of "
                      << ref.bytes.size() << ": reference 0x" << std::hex
                      << (at >= 0 ? int(ref.bytes[at]) : 0) << ", kernel 0x"
                      << (at >= 0 ? int(got[b][at]) : 0);
  }
}

class TileKernels : public ::testing::TestWithParam<int> {};

TEST_P(TileKernels, MatchReferenceBitForBit) {
  const Case &c = kCases[GetParam()];
  int64_t n = 1;
  for (int64_t d : c.shape)
    n *= d;
  std::vector<Fill> fills = {Fill::Normal, Fill::Special};
  if (n <= 400 * 400)
    fills.insert(fills.end(), {Fill::Tiny, Fill::Huge, Fill::Zeros, Fill::Ties});
  for (Fill fill : fills)
    runCase(c, fill, 17u + static_cast<unsigned>(fill));
}

INSTANTIATE_TEST_SUITE_P(
    Entries, TileKernels,
    ::testing::Range(0, static_cast<int>(sizeof(kCases) / sizeof(kCases[0]))));

} // namespace
