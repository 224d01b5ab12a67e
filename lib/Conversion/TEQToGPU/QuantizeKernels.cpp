//===- QuantizeKernels.cpp - GPU kernels of teq.quantize ------------------===//
//
// Kernels are emitted as MLIR text specialised to one quantization, then
// parsed into the module's gpu.module. `$NAME` tokens are substituted; loops
// that must be unrolled (byte packing) are generated here.
//
//===----------------------------------------------------------------------===//

#include "QuantizeKernels.h"

#include "llvm/ADT/StringRef.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

using namespace mlir::teq::kernels;

namespace {

const char *typeName(InputType t) {
  switch (t) {
  case InputType::F32:
    return "f32";
  case InputType::BF16:
    return "bf16";
  case InputType::F16:
    return "f16";
  }
  return "bf16";
}

/// Replaces every `$KEY` of `vars` in `text` (longest keys first).
std::string substituteVars(llvm::StringRef text,
                           const std::map<std::string, std::string> &vars);

/// `$KEY` substitution (the libdevice-free rewrite of math.absf and
/// arith.maxnumf is an IR pattern applied to every kernel: LibdeviceFree.h).
std::string substitute(llvm::StringRef text,
                       const std::map<std::string, std::string> &vars) {
  return substituteVars(text, vars);
}

std::string substituteVars(llvm::StringRef text,
                           const std::map<std::string, std::string> &vars) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '$') {
      const std::string *best = nullptr;
      const std::string *value = nullptr;
      for (const auto &[key, val] : vars)
        if (text.substr(i + 1).starts_with(key) &&
            (!best || key.size() > best->size())) {
          best = &key;
          value = &val;
        }
      if (best) {
        out += *value;
        i += 1 + best->size();
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}


/// Exact decimal-free spelling of a float constant (hex bit pattern).
std::string floatLiteral(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "0x";
  os.write_hex(bits);
  return s;
}

} // namespace

//===----------------------------------------------------------------------===//
// FP8 block scaling (te-semantics.md §5.3)
//===----------------------------------------------------------------------===//

namespace {

/// Lines computing `%<p>sc` (scale) and `%<p>inv` (1/scale) from the f32
/// `%<p>in` per compute_scale_from_amax (§5.1) with `valueForInf`.
std::string scaleFromAmax(const std::string &p, float fp8Max, float epsilon,
                          bool pow2, float valueForInf) {
  std::string s;
  llvm::raw_string_ostream os(s);
  auto lit = [](float f) { return floatLiteral(f); };
  os << "      %" << p << "eps = arith.constant " << lit(epsilon) << " : f32\n"
     << "      %" << p << "max = arith.constant " << lit(fp8Max) << " : f32\n"
     << "      %" << p << "vfi = arith.constant " << lit(valueForInf) << " : f32\n"
     << "      %" << p << "one = arith.constant 1.0 : f32\n"
     << "      %" << p << "zero = arith.constant 0.0 : f32\n"
     << "      %" << p << "inf = arith.constant 0x7F800000 : f32\n"
     << "      %" << p << "below = arith.cmpf olt, %" << p << "in, %" << p << "eps : f32\n"
     << "      %" << p << "am = arith.select %" << p << "below, %" << p << "eps, %" << p << "in : f32\n"
     << "      %" << p << "abs = math.absf %" << p << "am : f32\n"
     << "      %" << p << "isinf = arith.cmpf oeq, %" << p << "abs, %" << p << "inf : f32\n"
     << "      %" << p << "iszero = arith.cmpf oeq, %" << p << "am, %" << p << "zero : f32\n"
     << "      %" << p << "isnan = arith.cmpf uno, %" << p << "am, %" << p << "am : f32\n"
     << "      %" << p << "sp0 = arith.ori %" << p << "isinf, %" << p << "iszero : i1\n"
     << "      %" << p << "sp = arith.ori %" << p << "sp0, %" << p << "isnan : i1\n"
     << "      %" << p << "q = arith.divf %" << p << "max, %" << p << "am : f32\n"
     << "      %" << p << "qinf = arith.cmpf oeq, %" << p << "q, %" << p << "inf : f32\n"
     << "      %" << p << "q1 = arith.select %" << p << "qinf, %" << p << "vfi, %" << p << "q : f32\n"
     << "      %" << p << "bits = arith.bitcast %" << p << "q1 : f32 to i32\n"
     << "      %" << p << "mask = arith.constant " << (pow2 ? "-8388608" : "-1") << " : i32\n"
     << "      %" << p << "mbits = arith.andi %" << p << "bits, %" << p << "mask : i32\n"
     << "      %" << p << "q2 = arith.bitcast %" << p << "mbits : i32 to f32\n"
     << "      %" << p << "sc = arith.select %" << p << "sp, %" << p << "one, %" << p << "q2 : f32\n"
     << "      %" << p << "inv = arith.divf %" << p << "one, %" << p << "sc : f32\n";
  return s;
}

float maxFiniteOf(InputType t) {
  switch (t) {
  case InputType::F32:
    return 3.40282347e38f;
  case InputType::BF16:
    return 3.38953139e38f; // 0x7F7F0000
  case InputType::F16:
    return 65504.0f;
  }
  return 3.40282347e38f;
}

} // namespace


namespace {
/// Unrolled: for each of the 16 lanes of `vec`, the max over the 4 threads
/// of a warp sharing the column (xor 8, 16), stored by lanes 0..7 into
/// `buffer[base + %c + e]`. Constant positions keep `vec` in registers (a
/// dynamic index would spill it to local memory).
std::string columnPartialStores(const std::string &vec, const std::string &base,
                                const std::string &buffer,
                                const std::string &bufferType) {
  std::string s;
  llvm::raw_string_ostream os(s);
  for (int e = 0; e < 16; ++e) {
    std::string n = std::to_string(e);
    os << "      %cpv" << n << " = vector.extract " << vec << "[" << e
       << "] : f32 from vector<16xf32>\n"
       << "      %cpa" << n << ", %cpb" << n << " = gpu.shuffle xor %cpv" << n
       << ", %o8, %w32 : f32\n"
       << "      %cpc" << n << " = arith.maxnumf %cpv" << n << ", %cpa" << n
       << " : f32\n"
       << "      %cpd" << n << ", %cpe" << n << " = gpu.shuffle xor %cpc" << n
       << ", %o16, %w32 : f32\n"
       << "      %cpf" << n << " = arith.maxnumf %cpc" << n << ", %cpd" << n
       << " : f32\n";
  }
  os << "      scf.if %writer {\n";
  for (int e = 0; e < 16; ++e) {
    std::string n = std::to_string(e);
    os << "        %cpk" << n << " = arith.constant " << e << " : index\n"
       << "        %cpo" << n << " = arith.addi %c, %cpk" << n << " : index\n"
       << "        %cpi" << n << " = arith.addi " << base << ", %cpo" << n
       << " : index\n"
       << "        memref.store %cpf" << n << ", " << buffer << "[%cpi" << n
       << "] : " << bufferType << "\n";
  }
  os << "      }\n";
  return s;
}

} // namespace

int64_t mlir::teq::kernels::tileSharedBytes(InputType input) {
  (void)input;
  return 0;
}

int64_t mlir::teq::kernels::blockFP8SharedBytes(const BlockFP8Spec &spec) {
  (void)spec;
  return 0;
}

namespace {

/// `text` four times, once per row step p of the register-resident tile
/// kernels, with `@P` replaced by p and `@R` by 4p (the row offset).
std::string perRow(const std::string &text) {
  std::string out;
  for (int p = 0; p < 4; ++p) {
    std::string t = text;
    for (size_t at; (at = t.find("@R")) != std::string::npos;)
      t.replace(at, 2, std::to_string(4 * p));
    for (size_t at; (at = t.find("@Q")) != std::string::npos;)
      t.replace(at, 2, p ? std::to_string(p - 1) : std::string("init"));
    for (size_t at; (at = t.find("@P")) != std::string::npos;)
      t.replace(at, 2, std::to_string(p));
    out += t;
  }
  return out;
}

/// Lines converting the f32 lanes of vector<16xf32> `in` into `out`
/// (vector<16xi8>), RNE + satfinite; `tag` keeps the names apart.
std::string packFP8Tagged(const std::string &in, const std::string &out,
                          const std::string &tag, bool e5m2) {
  std::string s;
  llvm::raw_string_ostream os(s);
  const char *ty = e5m2 ? "f8E5M2" : "f8E4M3FN";
  for (int j = 0; j < 16; j += 2) {
    os << "      %" << tag << "e" << j << " = vector.extract " << in << "["
       << j << "] : f32 from vector<16xf32>\n";
    os << "      %" << tag << "e" << j + 1 << " = vector.extract " << in
       << "[" << j + 1 << "] : f32 from vector<16xf32>\n";
    os << "      %" << tag << "h" << j / 2 << " = nvvm.convert.f32x2.to.f8x2 %"
       << tag << "e" << j + 1 << ", %" << tag << "e" << j
       << " {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16 ("
       << ty << ")\n";
  }
  os << "      %" << tag << "hv = vector.from_elements ";
  for (int j = 0; j < 8; ++j)
    os << (j ? ", " : "") << "%" << tag << "h" << j;
  os << " : vector<8xi16>\n";
  os << "      " << out << " = vector.bitcast %" << tag
     << "hv : vector<8xi16> to vector<16xi8>\n";
  return s;
}

/// Start of the register-resident 128x128-tile kernels (block FP8, MXFP8):
/// warp w owns tile rows 16w..16w+15; lane l holds the 16 columns from
/// %c = 16 (l % 8) of rows %rbase + 4p, p = 0..3 (%rbase = 16w + l / 8).
/// The four rows are loaded at once (8 or 16 independent 16-byte loads a
/// thread) into %v0..%v3 (f32, zeros outside the tensor).
const char *kRegTilePrologue = R"(      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c12 = arith.constant 12 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c256 = arith.constant 256 : index
      %cm = arith.constant $M : index
      %ck = arith.constant $K : index
      %fz = arith.constant 0.0 : f32
      %fnz = arith.constant -0.0 : f32
      %vzero = arith.constant dense<0.0> : vector<16xf32>
      %vnz = arith.constant dense<-0.0> : vector<16xf32>
      %rzero = arith.constant dense<0> : vector<16xi16>
      %cmaxinit = arith.constant dense<0.0> : vector<16xf32>
      %i16z = arith.constant 0 : i16
      %sh16 = arith.constant dense<16> : vector<8xi32>
      %sh16x16 = arith.constant dense<16> : vector<16xi32>
      %mhi = arith.constant dense<-65536> : vector<8xi32>
      %w32 = arith.constant 32 : i32
      %o1 = arith.constant 1 : i32
      %o2 = arith.constant 2 : i32
      %o4 = arith.constant 4 : i32
      %o8 = arith.constant 8 : i32
      %o16 = arith.constant 16 : i32
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %k0 = arith.muli %bx, %c128 : index
      %m0 = arith.muli %by, %c128 : index
      %lane = arith.remui %tid, %c32 : index
      %warp = arith.divui %tid, %c32 : index
      %j = arith.remui %lane, %c8 : index
      %rl = arith.divui %lane, %c8 : index
      %c = arith.muli %j, %c16 : index
      %gk = arith.addi %k0, %c : index
      %kend = arith.addi %gk, %c16 : index
      %fullk = arith.cmpi ule, %kend, %ck : index
      %vecin = arith.constant $VECIN
      %w16 = arith.muli %warp, %c16 : index
      %rbase = arith.addi %w16, %rl : index
      %writer = arith.cmpi ult, %lane, %c8 : index
      %j0 = arith.cmpi eq, %j, %c0 : index
      %wbase = arith.muli %warp, %c128 : index
)";

/// Per row step: %r@P (tile row), %gm@P, %rowok@P, %rowbase@P, %goff@P.
const char *kRegTileRowVars = R"(      %cr@P = arith.constant @R : index
      %r@P = arith.addi %rbase, %cr@P : index
      %gm@P = arith.addi %m0, %r@P : index
      %rowok@P = arith.cmpi ult, %gm@P, %cm : index
      %rowbase@P = arith.muli %gm@P, %ck : index
      %goff@P = arith.addi %rowbase@P, %gk : index
)";

/// The f32 values of row step @P for a phase after a barrier: %w@P widened
/// again from the raw bf16 bits (exact: bf16 -> f32 is a 16-bit shift), or
/// %v@P itself for other inputs. Returns the lines; `name` gets the value.
std::string regTileWide(InputType input, std::string &name,
                        const std::string &tag = "") {
  if (input != InputType::BF16) {
    name = "%v@P";
    return "";
  }
  name = "%w" + tag + "@P";
  if (!tag.empty())
    // A third form (16-bit lanes, zero-extended, shifted): LLVM would merge
    // an identical expression with the one after the barriers.
    return "      %w" + tag + "h@P = vector.bitcast %u@P : vector<8xi32> to vector<16xi16>\n"
           "      %w" + tag + "x@P = arith.extui %w" + tag + "h@P : vector<16xi16> to vector<16xi32>\n"
           "      %w" + tag + "s@P = arith.shli %w" + tag + "x@P, %sh16x16 : vector<16xi32>\n"
           "      %w" + tag + "@P = arith.bitcast %w" + tag + "s@P : vector<16xi32> to vector<16xf32>\n";
  std::string s = R"(      %wlo@P = arith.shli %u@P, %sh16 : vector<8xi32>
      %whi@P = arith.andi %u@P, %mhi : vector<8xi32>
      %wl@P = arith.bitcast %wlo@P : vector<8xi32> to vector<8xf32>
      %wh@P = arith.bitcast %whi@P : vector<8xi32> to vector<8xf32>
      %w@P = vector.shuffle %wl@P, %wh@P [0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15] : vector<8xf32>, vector<8xf32>
)";
  for (size_t at = 0; (at = s.find("%w", at)) != std::string::npos; at += 2 + tag.size())
    s.replace(at, 2, "%w" + tag);
  return s;
}

/// The four rows' loads: one branch with all 16-byte loads where the
/// thread's four chunks are whole and aligned, else element by element.
/// bf16 inputs also keep the raw bits (%u0..%u3, vector<8xi32>): the phases
/// after a barrier widen them again (regTileWide) so that only 32 registers,
/// not 64, of tile data live across barriers.
std::string regTileLoads(InputType input) {
  bool f32 = input == InputType::F32, bf16 = input == InputType::BF16;
  std::string ext = f32 ? "arith.addf %l@P, %vnz : vector<16xf32>"
                        : "arith.extf %l@P : vector<16x$T> to vector<16xf32>";
  std::string types = "vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>";
  std::string rawTypes = "vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>";
  std::string s = perRow(kRegTileRowVars) + R"(      %fast0 = arith.andi %rowok3, %fullk : i1
      %fast = arith.andi %fast0, %vecin : i1
)";
  if (bf16) {
    s += "      %u0, %u1, %u2, %u3 = scf.if %fast -> (" + rawTypes + ") {\n" +
         perRow("        %l@P = vector.load %x[%goff@P] {alignment = 16} : memref<$Nx$T>, vector<16x$T>\n") +
         perRow("        %fu@P = vector.bitcast %l@P : vector<16xbf16> to vector<8xi32>\n") +
         "        scf.yield %fu0, %fu1, %fu2, %fu3 : " + rawTypes + "\n      } else {\n" +
         perRow(R"(        %sr@P = scf.for %e = %c0 to %c16 step %c1 iter_args(%racc = %rzero) -> vector<16xi16> {
          %kk = arith.addi %gk, %e : index
          %kin = arith.cmpi ult, %kk, %ck : index
          %ok = arith.andi %rowok@P, %kin : i1
          %raw = scf.if %ok -> i16 {
            %go = arith.addi %rowbase@P, %kk : index
            %xs = memref.load %x[%go] : memref<$Nx$T>
            %xr = arith.bitcast %xs : bf16 to i16
            scf.yield %xr : i16
          } else {
            scf.yield %i16z : i16
          }
          %rins = vector.insert %raw, %racc[%e] : i16 into vector<16xi16>
          scf.yield %rins : vector<16xi16>
        }
        %su@P = vector.bitcast %sr@P : vector<16xi16> to vector<8xi32>
)") + "        scf.yield %su0, %su1, %su2, %su3 : " + rawTypes + "\n      }\n";
  } else {
    s += "      %v0, %v1, %v2, %v3 = scf.if %fast -> (" + types + ") {\n" +
         perRow("        %l@P = vector.load %x[%goff@P] {alignment = 16} : memref<$Nx$T>, vector<16x$T>\n") +
         perRow("        %f@P = " + ext + "\n") +
         "        scf.yield %f0, %f1, %f2, %f3 : " + types + "\n      } else {\n" +
         perRow(R"(        %s@P = scf.for %e = %c0 to %c16 step %c1 iter_args(%acc = %vzero) -> vector<16xf32> {
          %kk = arith.addi %gk, %e : index
          %kin = arith.cmpi ult, %kk, %ck : index
          %ok = arith.andi %rowok@P, %kin : i1
          %val = scf.if %ok -> f32 {
            %go = arith.addi %rowbase@P, %kk : index
            %xs = memref.load %x[%go] : memref<$Nx$T>
            $SEXT
            scf.yield %xf : f32
          } else {
            scf.yield %fz : f32
          }
          %ins = vector.insert %val, %acc[%e] : f32 into vector<16xf32>
          scf.yield %ins : vector<16xf32>
        }
)") + "        scf.yield %s0, %s1, %s2, %s3 : " + types + "\n      }\n";
  }
  return s;
}

/// Per row step, before the barriers: %v@P (f32), %ab@P = |%v@P| and the
/// running column maximum %cmax@P (%cmax3 covers the thread's four rows).
/// Emitted row by row with the phase that uses %v@P, so that one row's f32
/// values are live at a time. bf16 widens with fpext here (a form LLVM does
/// not merge with regTileWide's shifts after the barriers).
std::string rowPrep(InputType input) {
  std::string s;
  if (input == InputType::BF16)
    s = "      %vb@P = vector.bitcast %u@P : vector<8xi32> to vector<16xbf16>\n"
        "      %v@P = arith.extf %vb@P : vector<16xbf16> to vector<16xf32>\n";
  return s + "      %ab@P = math.absf %v@P : vector<16xf32>\n"
             "      %cmax@P = arith.maxnumf %cmax@Q, %ab@P : vector<16xf32>\n";
}


/// Stores the bytes `bytes` (vector<16xi8>) of row step @P at `buf`[%goff@P]
/// (16 bytes where whole and `vec`, else byte by byte inside the tensor).
std::string regTileRowStore(const std::string &bytes, const std::string &buf,
                            const std::string &vec) {
  return R"(      %sv0_)" + buf + R"(@P = arith.andi %rowok@P, %fullk : i1
      %sok_)" + buf + R"(@P = arith.andi %sv0_)" + buf + R"(@P, )" + vec + R"( : i1
      scf.if %sok_)" + buf + R"(@P {
        vector.store )" + bytes + ", %" + buf + R"([%goff@P] {alignment = 16} : memref<$Nxi8>, vector<16xi8>
      } else {
        scf.if %rowok@P {
          scf.for %e = %c0 to %c16 step %c1 {
            %kk = arith.addi %gk, %e : index
            %kin = arith.cmpi ult, %kk, %ck : index
            scf.if %kin {
              %b = vector.extract )" + bytes + R"([%e] : i8 from vector<16xi8>
              %go = arith.addi %rowbase@P, %kk : index
              memref.store %b, %)" + buf + R"([%go] : memref<$Nxi8>
            }
          }
        }
      }
)";
}

/// Shuffle-xor max of the f32 `in` over `offsets`; the result is `out`.
std::string shuffleMax(const std::string &in, const std::string &out,
                       const std::string &tag,
                       std::initializer_list<int> offsets) {
  std::string s, cur = in;
  int n = 0;
  for (int o : offsets) {
    std::string x = "%" + tag + "x" + std::to_string(n),
                q = "%" + tag + "q" + std::to_string(n),
                m = ++n == static_cast<int>(offsets.size())
                        ? out
                        : "%" + tag + "m" + std::to_string(n);
    s += "      " + x + ", " + q + " = gpu.shuffle xor " + cur + ", %o" +
         std::to_string(o) + ", %w32 : f32\n";
    s += "      " + m + " = arith.maxnumf " + cur + ", " + x + " : f32\n";
    cur = m;
  }
  return s;
}


} // namespace

std::string mlir::teq::kernels::blockFP8Kernel(const BlockFP8Spec &spec) {
  int64_t m = spec.rows, k = spec.cols;
  int64_t nkb = (k + 127) / 128, nmb = (m + 127) / 128;
  float fp8Max = spec.e5m2 ? 57344.0f : 448.0f;
  float vfi = maxFiniteOf(spec.input);
  bool f32 = spec.input == InputType::F32;
  std::map<std::string, std::string> vars = {
      {"NAME", spec.prefix + "_block"},
      {"N", std::to_string(m * k)},
      {"M", std::to_string(m)},
      {"K", std::to_string(k)},
      {"T", typeName(spec.input)},
      {"RSR", std::to_string(spec.rowScaleRows * spec.rowScaleCols)},
      {"RSC", std::to_string(spec.rowScaleCols)},
      {"CSR", std::to_string(spec.colScaleRows * spec.colScaleCols)},
      {"CSC", std::to_string(spec.colScaleCols)},
      {"MPAD", std::to_string((m + 3) / 4 * 4)},
      {"KPAD", std::to_string((k + 3) / 4 * 4)},
      {"NKB", std::to_string(nkb)},
      {"NMB", std::to_string(nmb)},
      {"NKBPAD", std::to_string((nkb + 3) / 4 * 4)},
      {"NMBPAD", std::to_string((nmb + 3) / 4 * 4)},
      {"VECIN", k % 8 == 0 ? "true" : "false"},
      {"VECROW", k % 16 == 0 ? "true" : "false"},
      {"VECCOL", m % 16 == 0 ? "true" : "false"},
      {"SEXT", f32 ? "%xf = arith.addf %xs, %fnz : f32"
                   : "%xf = arith.extf %xs : $T to f32"},
      {"SHM", "#gpu.address_space<workgroup>"},
      // bf16 tiles fit 80 registers (tile data as raw bits; 64 for 2D):
      // three (four) blocks per SM instead of two.
      {"MINCTA", spec.input != InputType::BF16 ? ""
                 : spec.twoD                    ? ", nvvm.minctasm = 4 : i32"
                                                : ", nvvm.minctasm = 3 : i32"},
  };
  std::string args = "%x: memref<$Nx$T>";
  if (spec.rowwise)
    args += ", %rdata: memref<$Nxi8>, %rscale: memref<$RSRxf32>";
  if (spec.columnwise)
    args += ", %cdata: memref<$Nxi8>, %cscale: memref<$CSRxf32>";
  std::string wide, wideText = regTileWide(spec.input, wide);
  std::vector<std::string> wg;
  if (spec.twoD)
    wg.push_back("%wamax: memref<8xf32, $SHM> {llvm.align = 16 : i64}");
  else if (spec.columnwise)
    wg.insert(wg.end(), {"%colpart: memref<1024xf32, $SHM> {llvm.align = 16 : i64}",
                         "%colsc: memref<128xf32, $SHM> {llvm.align = 16 : i64}"});
  if (spec.columnwise)
    wg.push_back("%qt: memref<16384xi8, $SHM> {llvm.align = 16 : i64}");
  std::string wgText;
  for (const std::string &w : wg)
    wgText += (wgText.empty() ? "" : ", ") + w;

  // Layout (per 128x128 tile, one 256-thread block): the input is read once
  // into registers (kRegTilePrologue); rowwise data goes straight from
  // registers to global memory (16-byte stores); the columnwise copy is
  // quantized in registers, staged as FP8 bytes in %qt (16 KiB, 16-byte
  // chunks XOR-swizzled by row / 16 so that both the row stores and the
  // column gathers are free of bank conflicts), then gathered along columns
  // and written as 16-byte rows of the transposed copy.
  std::string text = R"(
    gpu.func @$NAME()" + args + ")" +
                     (wgText.empty() ? "" : "\n        workgroup(" + wgText + ")") + R"(
        kernel attributes {known_block_size = array<i32: 256, 1, 1>$MINCTA} {
)" + std::string(kRegTilePrologue) + regTileLoads(spec.input) + R"(      %t0 = arith.cmpi eq, %tid, %c0 : index
)";

  if (spec.twoD) {
    // The tile amax: thread, warp (shuffles), block (8 warp maxima).
    text += perRow(rowPrep(spec.input)) + R"(      %tmr = vector.reduction <maxnumf>, %cmax3 : vector<16xf32> into f32
)" + shuffleMax("%tmr", "%tmw", "tw", {1, 2, 4, 8, 16}) + R"(      %lane0 = arith.cmpi eq, %lane, %c0 : index
      scf.if %lane0 {
        memref.store %tmw, %wamax[%warp] : memref<8xf32, $SHM>
      }
      gpu.barrier
      %wav = vector.load %wamax[%c0] {alignment = 16} : memref<8xf32, $SHM>, vector<8xf32>
      %tsin = vector.reduction <maxnumf>, %wav : vector<8xf32> into f32
)" + scaleFromAmax("ts", fp8Max, spec.epsilon, spec.forcePow2, vfi) + R"(
      %tsb = vector.broadcast %tssc : f32 to vector<16xf32>
)" + perRow(wideText + "      %qs@P = arith.mulf " + wide + ", %tsb : vector<16xf32>\n" +
            packFP8Tagged("%qs@P", "%qb@P", "pq@P", spec.e5m2));
    if (spec.rowwise) {
      text += perRow(regTileRowStore("%qb@P", "rdata", "%vecrow")) + R"(
      scf.if %t0 {
        %sb = arith.muli %by, %rsc : index
        %si = arith.addi %sb, %bx : index
        memref.store %tsinv, %rscale[%si] : memref<$RSRxf32>
        // Zero the padding columns of this block row (last K-block only).
        %lastk = arith.cmpi eq, %bx, %nkbm1 : index
        scf.if %lastk {
          scf.for %pc = %nkb to %nkbpad step %c1 {
            %pi = arith.addi %sb, %pc : index
            memref.store %fz, %rscale[%pi] : memref<$RSRxf32>
          }
        }
      }
)";
    }
    if (spec.columnwise)
      text += R"(      scf.if %t0 {
        %sb = arith.muli %bx, %csc : index
        %si = arith.addi %sb, %by : index
        memref.store %tsinv, %cscale[%si] : memref<$CSRxf32>
        %lastm = arith.cmpi eq, %by, %nmbm1 : index
        scf.if %lastm {
          scf.for %pc = %nmb to %nmbpad step %c1 {
            %pi = arith.addi %sb, %pc : index
            memref.store %fz, %cscale[%pi] : memref<$CSRxf32>
          }
        }
      }
)";
  } else {
    // Before the barrier: the column maxima first, then the rowwise data
    // (the row phase widens the raw bits again), one row at a time each.
    std::string rowText, rwide, rwideText = regTileWide(spec.input, rwide, "r");
    if (spec.rowwise) {
      // 1x128 blocks: a row's 8 threads are lanes 8q..8q+7 of one warp.
      rowText = perRow(rwideText + "      %rab@P = math.absf " + rwide + R"( : vector<16xf32>
      %rm@P = vector.reduction <maxnumf>, %rab@P : vector<16xf32> into f32
)" + shuffleMax("%rm@P", "%rs@Pin", "rr@P", {1, 2, 4}) +
                     scaleFromAmax("rs@P", fp8Max, spec.epsilon,
                                   spec.forcePow2, vfi) +
                     R"(      %rsb@P = vector.broadcast %rs@Psc : f32 to vector<16xf32>
      %rq@P = arith.mulf )" + rwide + R"(, %rsb@P : vector<16xf32>
)" + packFP8Tagged("%rq@P", "%rb@P", "pr@P", spec.e5m2) +
                     regTileRowStore("%rb@P", "rdata", "%vecrow") + R"(      %si@P = arith.addi %sbase, %gm@P : index
      %wscale@P = arith.andi %j0, %rowok@P : i1
      scf.if %wscale@P {
        memref.store %rs@Pinv, %rscale[%si@P] : memref<$RSRxf32>
      }
      %inpad0_@P = arith.cmpi uge, %gm@P, %cm : index
      %inpad1_@P = arith.cmpi ult, %gm@P, %cmpad : index
      %inpad2_@P = arith.andi %inpad0_@P, %inpad1_@P : i1
      %inpad@P = arith.andi %inpad2_@P, %j0 : i1
      scf.if %inpad@P {
        memref.store %fz, %rscale[%si@P] : memref<$RSRxf32>
      }
)");
    }
    // 128x1 blocks: column maxima over the warp's 16 rows (shuffles), then
    // over the 8 warps (colpart) by one thread per column, which computes
    // the column's scale once.
    text += perRow(rowPrep(spec.input));
    if (spec.columnwise)
      text += columnPartialStores("%cmax3", "%wbase", "%colpart",
                                  "memref<1024xf32, $SHM>");
    text += rowText;
    if (spec.columnwise) {
      text += R"(      gpu.barrier
      %tc = arith.cmpi ult, %tid, %c128 : index
      scf.if %tc {
        %csin = scf.for %w = %c0 to %c8 step %c1 iter_args(%mm = %fz) -> f32 {
          %wb = arith.muli %w, %c128 : index
          %wi = arith.addi %wb, %tid : index
          %pv = memref.load %colpart[%wi] : memref<1024xf32, $SHM>
          %mx = arith.maxnumf %mm, %pv : f32
          scf.yield %mx : f32
        }
)" + scaleFromAmax("cs", fp8Max, spec.epsilon, spec.forcePow2, vfi) + R"(
        memref.store %cssc, %colsc[%tid] : memref<128xf32, $SHM>
        %gkc = arith.addi %k0, %tid : index
        %colok = arith.cmpi ult, %gkc, %ck : index
        %sbase2 = arith.muli %by, %csc : index
        %si = arith.addi %sbase2, %gkc : index
        scf.if %colok {
          memref.store %csinv, %cscale[%si] : memref<$CSRxf32>
        }
        %kp0 = arith.cmpi uge, %gkc, %ck : index
        %kp1 = arith.cmpi ult, %gkc, %ckpad : index
        %kpad = arith.andi %kp0, %kp1 : i1
        scf.if %kpad {
          memref.store %fz, %cscale[%si] : memref<$CSRxf32>
        }
      }
      gpu.barrier
      %csv = vector.load %colsc[%c] {alignment = 16} : memref<128xf32, $SHM>, vector<16xf32>
)" + perRow(wideText + "      %qs@P = arith.mulf " + wide + ", %csv : vector<16xf32>\n" +
            packFP8Tagged("%qs@P", "%qb@P", "pq@P", spec.e5m2));
    }
  }

  if (spec.columnwise) {
    // Stage the columnwise bytes: row r, 16-byte chunk j at chunk j ^ (r/16)
    // (r / 16 is the warp).
    text += R"(      %jx = arith.xori %j, %warp : index
      %jxo = arith.muli %jx, %c16 : index
)" + perRow(R"(      %qr@P = arith.muli %r@P, %c128 : index
      %qo@P = arith.addi %qr@P, %jxo : index
      vector.store %qb@P, %qt[%qo@P] {alignment = 16} : memref<16384xi8, $SHM>, vector<16xi8>
)") + R"(      gpu.barrier
      // Transposed copy: 1024 runs of 16 bytes (output row kt, tile rows
      // 16q..16q+15), 8 threads (one warp quarter) per output row.
      %veccol = arith.constant $VECCOL
      scf.for %s = %c0 to %c4 step %c1 {
        %s256 = arith.muli %s, %c256 : index
        %idx = arith.addi %s256, %tid : index
        %kt = arith.divui %idx, %c8 : index
        %q = arith.remui %idx, %c8 : index
        %m16 = arith.muli %q, %c16 : index
        %kw = arith.divui %kt, %c16 : index
        %kl = arith.remui %kt, %c16 : index
        %kx = arith.xori %kw, %q : index
        %kxo = arith.muli %kx, %c16 : index
        %colb = arith.addi %kxo, %kl : index
        %gbase0 = arith.muli %m16, %c128 : index
        %gbase = arith.addi %gbase0, %colb : index
)";
    for (int e = 0; e < 16; ++e) {
      std::string n = std::to_string(e);
      text += "        %go" + n + " = arith.constant " + std::to_string(e * 128) +
              " : index\n        %ga" + n + " = arith.addi %gbase, %go" + n +
              " : index\n        %gv" + n + " = memref.load %qt[%ga" + n +
              "] : memref<16384xi8, $SHM>\n";
    }
    text += "        %col = vector.from_elements ";
    for (int e = 0; e < 16; ++e)
      text += (e ? ", %gv" : "%gv") + std::to_string(e);
    text += R"( : vector<16xi8>
        %gkt = arith.addi %k0, %kt : index
        %kok = arith.cmpi ult, %gkt, %ck : index
        %gmt = arith.addi %m0, %m16 : index
        %mend = arith.addi %gmt, %c16 : index
        %fullm = arith.cmpi ule, %mend, %cm : index
        %cv0 = arith.andi %kok, %fullm : i1
        %cv = arith.andi %cv0, %veccol : i1
        %crow = arith.muli %gkt, %cm : index
        %coff = arith.addi %crow, %gmt : index
        scf.if %cv {
          vector.store %col, %cdata[%coff] {alignment = 16} : memref<$Nxi8>, vector<16xi8>
        } else {
          scf.if %kok {
            scf.for %e = %c0 to %c16 step %c1 {
              %mm2 = arith.addi %gmt, %e : index
              %min = arith.cmpi ult, %mm2, %cm : index
              scf.if %min {
                %b = vector.extract %col[%e] : i8 from vector<16xi8>
                %co = arith.addi %crow, %mm2 : index
                memref.store %b, %cdata[%co] : memref<$Nxi8>
              }
            }
          }
        }
      }
)";
  }
  text += R"(      gpu.return
    }
)";
  // Constants the phases above share.
  std::string consts = R"(      %rsc = arith.constant $RSC : index
      %csc = arith.constant $CSC : index
      %cmpad = arith.constant $MPAD : index
      %ckpad = arith.constant $KPAD : index
      %nkb = arith.constant $NKB : index
      %nkbpad = arith.constant $NKBPAD : index
      %nkbm1 = arith.subi %nkb, %c1 : index
      %nmb = arith.constant $NMB : index
      %nmbpad = arith.constant $NMBPAD : index
      %nmbm1 = arith.subi %nmb, %c1 : index
      %vecrow = arith.constant $VECROW
      %sbase = arith.muli %bx, %rsc : index
)";
  size_t at = text.find("      %t0 = arith.cmpi eq, %tid, %c0 : index\n");
  text.insert(at, consts);
  return substitute(substitute(text, vars), vars);
}

//===----------------------------------------------------------------------===//
// MXFP8 (te-semantics.md §5.4)
//===----------------------------------------------------------------------===//

namespace {

/// Lines computing the E8M0 code `%<p>e` (i32) and the multiplier `%<p>mul`
/// (f32) of the block amax `%<p>amax` (§5.4, TE's emulated float_to_e8m0
/// and exp2f_rcp).
std::string e8m0Code(const std::string &p, float maxNormRcp, bool hardware) {
  std::string s;
  llvm::raw_string_ostream os(s);
  auto v = [&](const char *n) { return "%" + p + n; };
  os << "      " << v("rcp") << " = arith.constant " << floatLiteral(maxNormRcp) << " : f32\n"
     << "      " << v("v") << " = arith.mulf " << v("amax") << ", " << v("rcp") << " : f32\n"
     << "      " << v("c23") << " = arith.constant 23 : i32\n"
     << "      " << v("cff") << " = arith.constant 255 : i32\n"
     << "      " << v("cfe") << " = arith.constant 254 : i32\n";
  if (hardware) {
    // Blackwell's round-up conversion, what TE's float_to_e8m0 emulates.
    os << "      " << v("hw") << " = nvvm.convert.f32x2.to.f8x2 " << v("v")
       << ", " << v("v")
       << " {rnd = #nvvm.fp_rnd_mode<rp>, sat = #nvvm.sat_mode<satfinite>} : "
          "i16 (f8E8M0FNU)\n"
       << "      " << v("hw32") << " = arith.extui " << v("hw")
       << " : i16 to i32\n"
       << "      " << v("e") << " = arith.andi " << v("hw32") << ", " << v("cff")
       << " : i32\n";
  } else {
    os << "      " << v("bits") << " = arith.bitcast " << v("v") << " : f32 to i32\n"
     << "      " << v("cmm") << " = arith.constant 8388607 : i32\n"
     << "      " << v("chalf") << " = arith.constant 4194304 : i32\n"
     << "      " << v("ci0") << " = arith.constant 0 : i32\n"
     << "      " << v("ci1") << " = arith.constant 1 : i32\n"
     << "      " << v("sh") << " = arith.shrui " << v("bits") << ", " << v("c23") << " : i32\n"
     << "      " << v("ex") << " = arith.andi " << v("sh") << ", " << v("cff") << " : i32\n"
     << "      " << v("man") << " = arith.andi " << v("bits") << ", " << v("cmm") << " : i32\n"
     << "      " << v("mpos") << " = arith.cmpi ugt, " << v("man") << ", " << v("ci0") << " : i32\n"
     << "      " << v("nfe") << " = arith.cmpi ne, " << v("ex") << ", " << v("cfe") << " : i32\n"
     << "      " << v("a1") << " = arith.andi " << v("mpos") << ", " << v("nfe") << " : i1\n"
     << "      " << v("ez") << " = arith.cmpi eq, " << v("ex") << ", " << v("ci0") << " : i32\n"
     << "      " << v("mle") << " = arith.cmpi ule, " << v("man") << ", " << v("chalf") << " : i32\n"
     << "      " << v("sub") << " = arith.andi " << v("ez") << ", " << v("mle") << " : i1\n"
     << "      " << v("true") << " = arith.constant true\n"
     << "      " << v("nsub") << " = arith.xori " << v("sub") << ", " << v("true") << " : i1\n"
     << "      " << v("inc") << " = arith.andi " << v("a1") << ", " << v("nsub") << " : i1\n"
     << "      " << v("incv") << " = arith.select " << v("inc") << ", " << v("ci1") << ", " << v("ci0") << " : i32\n"
     << "      " << v("e1") << " = arith.addi " << v("ex") << ", " << v("incv") << " : i32\n"
     << "      " << v("fz") << " = arith.constant 0.0 : f32\n"
     << "      " << v("finf") << " = arith.constant 0x7F800000 : f32\n"
     << "      " << v("isnan") << " = arith.cmpf uno, " << v("v") << ", " << v("v") << " : f32\n"
     << "      " << v("isinf") << " = arith.cmpf oeq, " << v("v") << ", " << v("finf") << " : f32\n"
     << "      " << v("iszero") << " = arith.cmpf oeq, " << v("v") << ", " << v("fz") << " : f32\n"
     << "      " << v("e2") << " = arith.select " << v("iszero") << ", " << v("ci0") << ", " << v("e1") << " : i32\n"
     << "      " << v("e3") << " = arith.select " << v("isinf") << ", " << v("cfe") << ", " << v("e2") << " : i32\n"
     << "      " << v("e") << " = arith.select " << v("isnan") << ", " << v("cff") << ", " << v("e3") << " : i32\n";
  }
  // exp2f_rcp
  os
     << "      " << v("rsub") << " = arith.subi " << v("cfe") << ", " << v("e") << " : i32\n"
     << "      " << v("rbits") << " = arith.shli " << v("rsub") << ", " << v("c23") << " : i32\n"
     << "      " << v("is254") << " = arith.cmpi eq, " << v("e") << ", " << v("cfe") << " : i32\n"
     << "      " << v("is255") << " = arith.cmpi eq, " << v("e") << ", " << v("cff") << " : i32\n"
     << "      " << v("c2m127") << " = arith.constant 4194304 : i32\n"
     << "      " << v("cnan") << " = arith.constant 2143289344 : i32\n"
     << "      " << v("rb1") << " = arith.select " << v("is254") << ", " << v("c2m127") << ", " << v("rbits") << " : i32\n"
     << "      " << v("rb2") << " = arith.select " << v("is255") << ", " << v("cnan") << ", " << v("rb1") << " : i32\n"
     << "      " << v("mul") << " = arith.bitcast " << v("rb2") << " : i32 to f32\n";
  return s;
}

/// `%<p>idx` (index) of scale S[%<p>i][%<p>j] in a buffer with `cols`
/// columns: compact row-major, or the 128x4 GEMM swizzle with
/// `numTilesX` tiles per 128-row band (te-semantics.md §4.2).
std::string scaleIndex(const std::string &p, bool swizzled, int64_t cols,
                       int64_t numTilesX) {
  std::string s;
  llvm::raw_string_ostream os(s);
  auto v = [&](const char *n) { return "%" + p + n; };
  if (!swizzled) {
    os << "      " << v("cols") << " = arith.constant " << cols << " : index\n"
       << "      " << v("r") << " = arith.muli " << v("i") << ", " << v("cols") << " : index\n"
       << "      " << v("idx") << " = arith.addi " << v("r") << ", " << v("j") << " : index\n";
    return s;
  }
  os << "      " << v("ntx") << " = arith.constant " << numTilesX << " : index\n"
     << "      " << v("k4") << " = arith.constant 4 : index\n"
     << "      " << v("k32") << " = arith.constant 32 : index\n"
     << "      " << v("k128") << " = arith.constant 128 : index\n"
     << "      " << v("k16") << " = arith.constant 16 : index\n"
     << "      " << v("k512") << " = arith.constant 512 : index\n"
     << "      " << v("ib") << " = arith.divui " << v("i") << ", " << v("k128") << " : index\n"
     << "      " << v("t0") << " = arith.muli " << v("ib") << ", " << v("ntx") << " : index\n"
     << "      " << v("jb") << " = arith.divui " << v("j") << ", " << v("k4") << " : index\n"
     << "      " << v("tile") << " = arith.addi " << v("t0") << ", " << v("jb") << " : index\n"
     << "      " << v("tb") << " = arith.muli " << v("tile") << ", " << v("k512") << " : index\n"
     << "      " << v("i32") << " = arith.remui " << v("i") << ", " << v("k32") << " : index\n"
     << "      " << v("o1") << " = arith.muli " << v("i32") << ", " << v("k16") << " : index\n"
     << "      " << v("i128") << " = arith.remui " << v("i") << ", " << v("k128") << " : index\n"
     << "      " << v("q") << " = arith.divui " << v("i128") << ", " << v("k32") << " : index\n"
     << "      " << v("o2") << " = arith.muli " << v("q") << ", " << v("k4") << " : index\n"
     << "      " << v("j4") << " = arith.remui " << v("j") << ", " << v("k4") << " : index\n"
     << "      " << v("s1") << " = arith.addi " << v("tb") << ", " << v("o1") << " : index\n"
     << "      " << v("s2") << " = arith.addi " << v("s1") << ", " << v("o2") << " : index\n"
     << "      " << v("idx") << " = arith.addi " << v("s2") << ", " << v("j4") << " : index\n";
  return s;
}

} // namespace

std::string mlir::teq::kernels::mxfp8Kernel(const MXFP8Spec &spec) {
  int64_t m = spec.rows, k = spec.cols;
  bool f32 = spec.input == InputType::F32;
  float rcp = static_cast<float>(1.0 / (spec.e5m2 ? 57344.0 : 448.0));
  std::map<std::string, std::string> vars = {
      {"NAME", spec.prefix + "_mxfp8"},
      {"N", std::to_string(m * k)},
      {"M", std::to_string(m)},
      {"K", std::to_string(k)},
      {"T", typeName(spec.input)},
      {"RS", std::to_string(spec.rowScaleRows * spec.rowScaleCols)},
      {"CS", std::to_string(spec.colScaleRows * spec.colScaleCols)},
      {"VECIN", k % 8 == 0 ? "true" : "false"},
      {"VECOUT", k % 16 == 0 ? "true" : "false"},
      {"SEXT", f32 ? "%xf = arith.addf %xs, %fnz : f32"
                   : "%xf = arith.extf %xs : $T to f32"},
      {"SHM", "#gpu.address_space<workgroup>"},
      // bf16 tiles fit 80 registers (tile data as raw bits): three blocks
      // (768 threads) per SM instead of two.
      {"MINCTA", spec.input == InputType::BF16 ? ", nvvm.minctasm = 3 : i32" : ""},
  };
  std::string args = "%x: memref<$Nx$T>";
  if (spec.rowwise)
    args += ", %rdata: memref<$Nxi8>, %rscale: memref<$RSxi8>";
  if (spec.columnwise)
    args += ", %cdata: memref<$Nxi8>, %cscale: memref<$CSxi8>";
  std::string wide, wideText = regTileWide(spec.input, wide);
  std::string wg;
  if (spec.twoD)
    wg = "%tpart: memref<32xf32, $SHM> {llvm.align = 16 : i64}";
  else if (spec.columnwise)
    wg = "%colpart: memref<1024xf32, $SHM> {llvm.align = 16 : i64}, "
         "%colmul: memref<512xf32, $SHM> {llvm.align = 16 : i64}";

  // The columnwise scale byte of column %<p>k (global) and 32-row group
  // starting at global row %cgm: S[m/32][k] compact, or the swizzle with
  // the column as the row index (as the reference lays it out); 0 in the
  // padding (%wc false). The tiles cover the padded scale buffers exactly,
  // so the kernel writes every scale byte: no zero-fill kernels.
  auto colScaleStore = [&](const std::string &e) {
    std::string s = R"(          %csi = arith.divui %cgm, %c32 : index
          %csj = arith.addi %cgk, %c0 : index
)";
    if (spec.swizzled)
      s += "          %csti = arith.addi %csj, %c0 : index\n"
           "          %cstj = arith.addi %csi, %c0 : index\n" +
           scaleIndex("cst", true, 0, spec.colScaleRows / 4) +
           "          %ceb0 = arith.trunci " + e + " : i32 to i8\n"
           "          %ceb = arith.select %wc, %ceb0, %i8z : i8\n"
           "          memref.store %ceb, %cscale[%cstidx] : memref<$CSxi8>\n";
    else
      s += scaleIndex("cs", false, spec.colScaleCols, 0) +
           "          %ceb0 = arith.trunci " + e + " : i32 to i8\n"
           "          %ceb = arith.select %wc, %ceb0, %i8z : i8\n"
           "          memref.store %ceb, %cscale[%csidx] : memref<$CSxi8>\n";
    return s;
  };

  // Layout (per 128x128 tile, one 256-thread block): the input is read once
  // into registers (kRegTilePrologue: warp w owns rows 16w..16w+15, so the
  // 32-row group of its rows is w / 2); both copies ([M,K]) are written
  // from registers with 16-byte stores. 1x32 blocks are two neighbouring
  // lanes (shuffle xor 1); 32x1 blocks are the 16 rows of a warp (shuffles
  // xor 8, 16) and its partner warp w ^ 1 (shared memory); 32x32 tiles both.
  std::string text = R"(
    gpu.func @$NAME()" + args + ")" +
                     (wg.empty() ? "" : "\n        workgroup(" + wg + ")") + R"(
        kernel attributes {known_block_size = array<i32: 256, 1, 1>$MINCTA} {
)" + std::string(kRegTilePrologue) + regTileLoads(spec.input) + R"(      %vecout = arith.constant $VECOUT
      %i8z = arith.constant 0 : i8
      %jpar = arith.remui %j, %c2 : index
      %jeven = arith.cmpi eq, %jpar, %c0 : index
      %kin0 = arith.cmpi ult, %gk, %ck : index
      %grp = arith.divui %warp, %c2 : index
      %wpar = arith.remui %warp, %c2 : index
      %weven = arith.cmpi eq, %wpar, %c0 : index
      %partner = arith.xori %warp, %c1 : index
)";

  if (spec.twoD) {
    // The 32x32 tile amax: thread (4 rows x 16 columns), lane pair (xor 1),
    // the warp's 16 rows (xor 8, 16), then the partner warp.
    text += perRow(rowPrep(spec.input)) + R"(      %tmr = vector.reduction <maxnumf>, %cmax3 : vector<16xf32> into f32
)" + shuffleMax("%tmr", "%tmw", "tw", {1, 8, 16}) + R"(      %jh = arith.divui %j, %c2 : index
      %tslot0 = arith.muli %warp, %c4 : index
      %tslot = arith.addi %tslot0, %jh : index
      %tw0 = arith.andi %writer, %jeven : i1
      scf.if %tw0 {
        memref.store %tmw, %tpart[%tslot] : memref<32xf32, $SHM>
      }
      gpu.barrier
      %pslot0 = arith.muli %partner, %c4 : index
      %pslot = arith.addi %pslot0, %jh : index
      %tmp = memref.load %tpart[%pslot] : memref<32xf32, $SHM>
      %txamax = arith.maxnumf %tmw, %tmp : f32
)" + e8m0Code("tx", rcp, spec.hardwareConversions) + R"(
      %txb = vector.broadcast %txmul : f32 to vector<16xf32>
)" + perRow(wideText + "      %qs@P = arith.mulf " + wide + ", %txb : vector<16xf32>\n" +
            packFP8Tagged("%qs@P", "%qb@P", "pq@P", spec.e5m2));
  }

  if (!spec.twoD) {
    // Before the barrier: the column maxima first, then the rowwise data
    // (the row phase widens the raw bits again), one row at a time each.
    text += perRow(rowPrep(spec.input));
    if (spec.columnwise)
      text += columnPartialStores("%cmax3", "%wbase", "%colpart",
                                  "memref<1024xf32, $SHM>");
  }
  if (spec.rowwise) {
    std::string rowCode;
    std::string bytes = "%qb@P", e = "%txe";
    if (!spec.twoD) {
      std::string rwide, rwideText = regTileWide(spec.input, rwide, "r");
      rowCode = rwideText + "      %rab@P = math.absf " + rwide + R"( : vector<16xf32>
      %hm@P = vector.reduction <maxnumf>, %rab@P : vector<16xf32> into f32
)" + shuffleMax("%hm@P", "%rx@Pamax", "rh@P", {1}) + e8m0Code("rx@P", rcp, spec.hardwareConversions) +
                R"(      %rxb@P = vector.broadcast %rx@Pmul : f32 to vector<16xf32>
      %rq@P = arith.mulf )" + rwide + R"(, %rxb@P : vector<16xf32>
)" + packFP8Tagged("%rq@P", "%rb@P", "pr@P", spec.e5m2);
      bytes = "%rb@P";
      e = "%rx@Pe";
    }
    // Every even lane writes its row's scale byte (0 in the padding).
    rowCode += regTileRowStore(bytes, "rdata", "%vecout") + R"(      %ws@P = arith.andi %rowok@P, %kin0 : i1
      scf.if %jeven {
        %rsi = arith.addi %gm@P, %c0 : index
        %rsj = arith.divui %gk, %c32 : index
)" + scaleIndex("rs", spec.swizzled, spec.rowScaleCols, spec.rowScaleCols / 4) +
               R"(
        %eb0 = arith.trunci )" + e + R"( : i32 to i8
        %eb = arith.select %ws@P, %eb0, %i8z : i8
        memref.store %eb, %rscale[%rsidx] : memref<$RSxi8>
      }
)";
    text += perRow(rowCode);
  }

  if (spec.columnwise && spec.twoD) {
    text += perRow(regTileRowStore("%qb@P", "cdata", "%vecout")) + R"(      %cw = arith.andi %writer, %weven : i1
      scf.if %cw {
        %g32 = arith.muli %grp, %c32 : index
        %cgm = arith.addi %m0, %g32 : index
        %gok = arith.cmpi ult, %cgm, %cm : index
        scf.for %e = %c0 to %c16 step %c1 {
          %cgk = arith.addi %gk, %e : index
          %kin = arith.cmpi ult, %cgk, %ck : index
          %wc = arith.andi %kin, %gok : i1
)" + colScaleStore("%txe") + R"(        }
      }
)";
  } else if (spec.columnwise) {
    text += R"(      gpu.barrier
      // Exponent and multiplier of each (32-row group, column): two a thread.
      scf.for %qq = %c0 to %c2 step %c1 {
        %qo = arith.muli %qq, %c256 : index
        %qi = arith.addi %tid, %qo : index
        %qp = arith.divui %qi, %c128 : index
        %qc = arith.remui %qi, %c128 : index
        %qw0 = arith.muli %qp, %c256 : index
        %qa = arith.addi %qw0, %qc : index
        %qb = arith.addi %qa, %c128 : index
        %pa = memref.load %colpart[%qa] : memref<1024xf32, $SHM>
        %pb = memref.load %colpart[%qb] : memref<1024xf32, $SHM>
        %cqamax = arith.maxnumf %pa, %pb : f32
)" + e8m0Code("cq", rcp, spec.hardwareConversions) + R"(
        memref.store %cqmul, %colmul[%qi] : memref<512xf32, $SHM>
        %cgk = arith.addi %k0, %qc : index
        %r32 = arith.muli %qp, %c32 : index
        %cgm = arith.addi %m0, %r32 : index
        %kin = arith.cmpi ult, %cgk, %ck : index
        %gok = arith.cmpi ult, %cgm, %cm : index
        %wc = arith.andi %kin, %gok : i1
)" + colScaleStore("%cqe") + R"(      }
      gpu.barrier
      %mg = arith.muli %grp, %c128 : index
      %mi = arith.addi %mg, %c : index
      %mulv = vector.load %colmul[%mi] {alignment = 16} : memref<512xf32, $SHM>, vector<16xf32>
)" + perRow(wideText + "      %cq@P = arith.mulf " + wide + ", %mulv : vector<16xf32>\n" +
            packFP8Tagged("%cq@P", "%cb@P", "pc@P", spec.e5m2) +
            regTileRowStore("%cb@P", "cdata", "%vecout"));
  }
  text += R"(      gpu.return
    }
)";
  return substitute(substitute(text, vars), vars);
}

//===----------------------------------------------------------------------===//
// Delayed-scaling update (te-semantics.md §5.2)
//===----------------------------------------------------------------------===//

std::string mlir::teq::kernels::delayedScalingUpdateKernel(
    const std::string &name, int64_t slots, int64_t length, float fp8Max,
    int64_t margin, bool mostRecent) {
  std::map<std::string, std::string> vars = {
      {"NAME", name},
      {"S", std::to_string(slots)},
      {"L", std::to_string(length)},
      {"LS", std::to_string(slots * length)},
      {"SMAX", floatLiteral(std::ldexp(fp8Max, -static_cast<int>(margin)))},
      {"ALGO", mostRecent ? "%last" : "%wmax0"},
  };
  return substitute(R"(
    gpu.func @$NAME(%scale: memref<$Sxf32>, %hist: memref<$LSxf32>,
                    %nscale: memref<$Sxf32>, %nhist: memref<$LSxf32>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c256 = arith.constant 256 : index
      %cs = arith.constant $S : index
      %cl = arith.constant $L : index
      %fz = arith.constant 0.0 : f32
      %inf = arith.constant 0x7F800000 : f32
      %fltmax = arith.constant 0x7F7FFFFF : f32
      %smax = arith.constant $SMAX : f32
      %tid = gpu.thread_id x
      scf.for %s = %tid to %cs step %c256 {
        %last = memref.load %hist[%s] : memref<$LSxf32>
        // NaN counts as non-zero, as in the C++ `last != 0`.
        %lnz = arith.cmpf une, %last, %fz : f32
        %wmax = scf.for %l = %c0 to %cl step %c1 iter_args(%wm = %fz) -> f32 {
          %lp1 = arith.addi %l, %c1 : index
          %inr = arith.cmpi ult, %lp1, %cl : index
          %a = scf.if %inr -> f32 {
            %ni = arith.muli %lp1, %cs : index
            %nidx = arith.addi %ni, %s : index
            %nv = memref.load %hist[%nidx] : memref<$LSxf32>
            scf.yield %nv : f32
          } else {
            scf.yield %last : f32
          }
          %wm2 = arith.maxnumf %wm, %a : f32
          %oi = arith.muli %l, %cs : index
          %oidx = arith.addi %oi, %s : index
          %old = memref.load %hist[%oidx] : memref<$LSxf32>
          %lgt0 = arith.cmpi ugt, %l, %c0 : index
          %rolled = arith.select %lgt0, %a, %fz : f32
          %new = arith.select %lnz, %rolled, %old : f32
          memref.store %new, %nhist[%oidx] : memref<$LSxf32>
          scf.yield %wm2 : f32
        }
        %wmax0 = arith.select %lnz, %wmax, %fz : f32
        %amax = arith.addf $ALGO, %fz : f32
        %absamax = math.absf %amax : f32
        %finite = arith.cmpf olt, %absamax, %inf : f32
        %pos = arith.cmpf ogt, %amax, %fz : f32
        %use = arith.andi %finite, %pos : i1
        %olds = memref.load %scale[%s] : memref<$Sxf32>
        %q = arith.divf %smax, %amax : f32
        %sc0 = arith.select %use, %q, %olds : f32
        %abssc = math.absf %sc0 : f32
        %scinf = arith.cmpf oeq, %abssc, %inf : f32
        %sc = arith.select %scinf, %fltmax, %sc0 : f32
        memref.store %sc, %nscale[%s] : memref<$Sxf32>
      }
      gpu.return
    }
)",
                    vars);
}

//===----------------------------------------------------------------------===//
// Bias gradient (teq.bias_grad): column sums of an M x N gradient
//===----------------------------------------------------------------------===//

int64_t mlir::teq::kernels::biasGradChunks(const BiasGradSpec &spec) {
  // Enough blocks to fill the GPU (~4 per SM on 132 SMs) without making the
  // ordered second pass long.
  int64_t columnBlocks = (spec.cols + kBlockSize - 1) / kBlockSize;
  int64_t chunks = (528 + columnBlocks - 1) / columnBlocks;
  return std::clamp<int64_t>(chunks, 1, std::min<int64_t>(spec.rows, 64));
}

std::string mlir::teq::kernels::biasGradKernels(const BiasGradSpec &spec) {
  // Pass 1: block (x, y) sums rows [y*R, min(M, (y+1)*R)) of 256 columns
  // into partial[y][col] (fp32). Pass 2 adds the partials in chunk order,
  // so the result does not depend on scheduling.
  int64_t chunks = biasGradChunks(spec);
  int64_t rowsPerChunk = (spec.rows + chunks - 1) / chunks;
  auto typeName = [](InputType t) {
    return t == InputType::F32 ? "f32" : t == InputType::F16 ? "f16" : "bf16";
  };
  std::string in = typeName(spec.input), out = typeName(spec.output);
  std::map<std::string, std::string> vars = {
      {"P", spec.prefix},
      {"MN", std::to_string(spec.rows * spec.cols)},
      {"M", std::to_string(spec.rows)},
      {"N", std::to_string(spec.cols)},
      {"R", std::to_string(rowsPerChunk)},
      {"C", std::to_string(chunks)},
      {"CN", std::to_string(chunks * spec.cols)},
      {"T", in},
      {"O", out},
      {"LOADF", spec.input == InputType::F32
                    ? "%vf = arith.addf %v, %zero : f32"
                    : "%vf = arith.extf %v : " + in + " to f32"},
      {"STOREO", spec.output == InputType::F32
                     ? "%o = arith.addf %total, %zero : f32"
                     : "%o = arith.truncf %total : f32 to " + out}};
  return substitute(R"(
    gpu.func @$P_bgrad_partial(%x: memref<$MNx$T>, %partial: memref<$CNxf32>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %c1 = arith.constant 1 : index
      %c256 = arith.constant 256 : index
      %cm = arith.constant $M : index
      %cn = arith.constant $N : index
      %cr = arith.constant $R : index
      %zero = arith.constant 0.0 : f32
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %c0x = arith.muli %bx, %c256 : index
      %col = arith.addi %c0x, %tid : index
      %inside = arith.cmpi ult, %col, %cn : index
      scf.if %inside {
        %r0 = arith.muli %by, %cr : index
        %r1u = arith.addi %r0, %cr : index
        %r1 = arith.minui %r1u, %cm : index
        %sum = scf.for %r = %r0 to %r1 step %c1 iter_args(%acc = %zero) -> (f32) {
          %rn = arith.muli %r, %cn : index
          %i = arith.addi %rn, %col : index
          %v = memref.load %x[%i] : memref<$MNx$T>
          $LOADF
          %next = arith.addf %acc, %vf : f32
          scf.yield %next : f32
        }
        %pn = arith.muli %by, %cn : index
        %pi = arith.addi %pn, %col : index
        memref.store %sum, %partial[%pi] : memref<$CNxf32>
      }
      gpu.return
    }

    gpu.func @$P_bgrad_final(%partial: memref<$CNxf32>, %db: memref<$Nx$O>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c256 = arith.constant 256 : index
      %cn = arith.constant $N : index
      %cc = arith.constant $C : index
      %zero = arith.constant 0.0 : f32
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %c0x = arith.muli %bx, %c256 : index
      %col = arith.addi %c0x, %tid : index
      %inside = arith.cmpi ult, %col, %cn : index
      scf.if %inside {
        %total = scf.for %c = %c0 to %cc step %c1 iter_args(%acc = %zero) -> (f32) {
          %pn = arith.muli %c, %cn : index
          %pi = arith.addi %pn, %col : index
          %p = memref.load %partial[%pi] : memref<$CNxf32>
          %next = arith.addf %acc, %p : f32
          scf.yield %next : f32
        }
        $STOREO
        memref.store %o, %db[%col] : memref<$Nx$O>
      }
      gpu.return
    }
)",
                    vars);
}

std::string mlir::teq::kernels::sliceKernel(const SliceSpec &spec) {
  // Element i of the slice (row-major over `sizes`) is element
  //   sum_d (offsets[d] + idx_d * strides[d]) * fullStride[d]
  // of the full tensor; gather reads it, scatter writes it.
  int64_t elements = 1, full = 1;
  for (int64_t s : spec.sizes)
    elements *= s;
  for (int64_t s : spec.fullShape)
    full *= s;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "    gpu.func @" << spec.name << "(%full: memref<" << full << "x"
     << spec.elementType << ">, %part: memref<" << elements << "x"
     << spec.elementType << ">)\n"
     << "        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {\n"
     << "      %c256 = arith.constant 256 : index\n"
     << "      %cs = arith.constant " << elements << " : index\n"
     << "      %tid = gpu.thread_id x\n"
     << "      %bid = gpu.block_id x\n"
     << "      %gd = gpu.grid_dim x\n"
     << "      %b0 = arith.muli %bid, %c256 : index\n"
     << "      %start = arith.addi %b0, %tid : index\n"
     << "      %stride = arith.muli %gd, %c256 : index\n"
     << "      scf.for %i = %start to %cs step %stride {\n"
     << "        %rem" << spec.sizes.size() << " = arith.addi %i, %c0i : index\n";
  // Peel dimensions from the innermost: idx_d = rem % size_d.
  int64_t fullStride = 1;
  std::string sum = "%zero";
  size_t rank = spec.sizes.size();
  for (size_t k = rank; k-- > 0;) {
    std::string d = std::to_string(k);
    os << "        %sz" << d << " = arith.constant " << spec.sizes[k]
       << " : index\n"
       << "        %idx" << d << " = arith.remui %rem" << k + 1 << ", %sz" << d
       << " : index\n"
       << "        %rem" << d << " = arith.divui %rem" << k + 1 << ", %sz"
       << d << " : index\n"
       << "        %st" << d << " = arith.constant " << spec.strides[k]
       << " : index\n"
       << "        %off" << d << " = arith.constant " << spec.offsets[k]
       << " : index\n"
       << "        %fs" << d << " = arith.constant " << fullStride
       << " : index\n"
       << "        %p" << d << " = arith.muli %idx" << d << ", %st" << d
       << " : index\n"
       << "        %q" << d << " = arith.addi %p" << d << ", %off" << d
       << " : index\n"
       << "        %r" << d << " = arith.muli %q" << d << ", %fs" << d
       << " : index\n"
       << "        %sum" << d << " = arith.addi " << sum << ", %r" << d
       << " : index\n";
    sum = "%sum" + d;
    fullStride *= spec.fullShape[k];
  }
  std::string fullType =
      "memref<" + std::to_string(full) + "x" + spec.elementType + ">";
  std::string partType =
      "memref<" + std::to_string(elements) + "x" + spec.elementType + ">";
  if (spec.scatter)
    os << "        %v = memref.load %part[%i] : " << partType << "\n"
       << "        memref.store %v, %full[" << sum << "] : " << fullType << "\n";
  else
    os << "        %v = memref.load %full[" << sum << "] : " << fullType << "\n"
       << "        memref.store %v, %part[%i] : " << partType << "\n";
  os << "      }\n      gpu.return\n    }\n";
  // %zero and %c0i are defined at the top (the loop body refers to them).
  std::string header = "      %zero = arith.constant 0 : index\n"
                       "      %c0i = arith.constant 0 : index\n";
  size_t at = text.find("      %c256");
  text.insert(at, header);
  return text;
}
