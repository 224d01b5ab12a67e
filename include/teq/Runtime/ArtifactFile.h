//===- ArtifactFile.h - The artifact file: library, note, trailer -*- C++ -*-===//
//
// The bytes of an artifact file (docs/Artifact.md, "The artifact file"): the
// linked shared library, then the manifest and a fixed-size footer, appended
// after linking (ELF loaders ignore bytes that no header describes):
//
//   0            L                  L + M           T = L + M + 48
//   | library .. | manifest JSON .. | footer (48 B) |
//
//   footer (little-endian)
//      0  char[8]  magic "TEQTRAIL"
//      8  u32      trailer format version (1)
//     12  u32      flags (0)
//     16  u64      L: bytes of the library
//     24  u64      M: bytes of the manifest
//     32  u64      T: bytes of the whole file
//     40  u64      XXH64 (seed 0) of bytes [0, T - 8), everything before it
//
// The library also has an ELF note (name "TEQ", type 1, 4-byte aligned, in a
// PT_NOTE segment) whose 16-byte descriptor is {u32 trailer format version,
// u32 flags, u64 T}; T is 0 until the trailer is written. The program headers
// and notes sit at the start of the file, so a truncated file, whose footer
// is gone, still says how long it should be.
//
// The runtime checks all of it before it loads any code (readArtifactFile,
// lib/Runtime/ArtifactFile.cpp); te-compile writes it with seal(). The
// artifact_file helpers are header-only and need only the C++ standard
// library: the compiler, which does not link the runtime, and the runtime
// share this one definition. Everything is bounds-checked: these functions
// read files that may be damaged.
//
// No MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_RUNTIME_ARTIFACTFILE_H
#define TEQ_RUNTIME_ARTIFACTFILE_H

#include "teq/Runtime/Export.h"
#include "teq/Runtime/Status.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace mlir::teq::runtime {

namespace artifact_file {

inline constexpr char kMagic[8] = {'T', 'E', 'Q', 'T', 'R', 'A', 'I', 'L'};
inline constexpr uint32_t kVersion = 1;
inline constexpr size_t kFooterBytes = 48;
/// Offset of the checksum in the footer; it covers the file up to here.
inline constexpr size_t kChecksumOffset = 40;

/// The note: name "TEQ" (namesz 4 with its NUL), type 1, a 16-byte
/// descriptor; 32 bytes in all.
inline constexpr uint32_t kNoteType = 1;
inline constexpr size_t kNoteDescriptorBytes = 16;
inline constexpr size_t kNoteBytes = 12 + 4 + kNoteDescriptorBytes;
/// The section te-compile puts the note in (any SHT_NOTE section that the
/// linker maps into a PT_NOTE segment will do).
inline constexpr char kNoteSection[] = ".note.teq";

//===----------------------------------------------------------------------===//
// Little-endian fields
//===----------------------------------------------------------------------===//

inline uint32_t loadLE32(const char *p) {
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i)
    value = (value << 8) | static_cast<unsigned char>(p[i]);
  return value;
}

inline uint64_t loadLE64(const char *p) {
  return loadLE32(p) | (static_cast<uint64_t>(loadLE32(p + 4)) << 32);
}

inline void storeLE32(char *p, uint32_t value) {
  for (int i = 0; i < 4; ++i)
    p[i] = static_cast<char>(value >> (8 * i));
}

inline void storeLE64(char *p, uint64_t value) {
  storeLE32(p, static_cast<uint32_t>(value));
  storeLE32(p + 4, static_cast<uint32_t>(value >> 32));
}

/// Whether [offset, offset + length) lies inside `size` bytes (no overflow).
inline bool inBounds(uint64_t size, uint64_t offset, uint64_t length) {
  return offset <= size && length <= size - offset;
}

//===----------------------------------------------------------------------===//
// XXH64
//===----------------------------------------------------------------------===//

/// XXH64 of `data` (Yann Collet's xxHash, 64-bit, as libxxhash computes it).
/// A fast checksum, not a cryptographic hash: it detects damage, not
/// tampering.
inline uint64_t xxh64(std::string_view data, uint64_t seed = 0) {
  constexpr uint64_t p1 = 0x9E3779B185EBCA87ull, p2 = 0xC2B2AE3D27D4EB4Full,
                     p3 = 0x165667B19E3779F9ull, p4 = 0x85EBCA77C2B2AE63ull,
                     p5 = 0x27D4EB2F165667C5ull;
  auto rotl = [](uint64_t x, int r) { return (x << r) | (x >> (64 - r)); };
  auto round = [&](uint64_t acc, uint64_t input) {
    return rotl(acc + input * p2, 31) * p1;
  };
  auto merge = [&](uint64_t acc, uint64_t value) {
    return (acc ^ round(0, value)) * p1 + p4;
  };
  const char *p = data.data();
  const char *end = p + data.size();
  uint64_t hash;
  if (data.size() >= 32) {
    uint64_t v1 = seed + p1 + p2, v2 = seed + p2, v3 = seed, v4 = seed - p1;
    for (; end - p >= 32; p += 32) {
      v1 = round(v1, loadLE64(p));
      v2 = round(v2, loadLE64(p + 8));
      v3 = round(v3, loadLE64(p + 16));
      v4 = round(v4, loadLE64(p + 24));
    }
    hash = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
    hash = merge(merge(merge(merge(hash, v1), v2), v3), v4);
  } else {
    hash = seed + p5;
  }
  hash += data.size();
  for (; end - p >= 8; p += 8)
    hash = rotl(hash ^ round(0, loadLE64(p)), 27) * p1 + p4;
  if (end - p >= 4) {
    hash = rotl(hash ^ (loadLE32(p) * p1), 23) * p2 + p3;
    p += 4;
  }
  for (; p < end; ++p)
    hash = rotl(hash ^ (static_cast<unsigned char>(*p) * p5), 11) * p1;
  hash ^= hash >> 33;
  hash *= p2;
  hash ^= hash >> 29;
  hash *= p3;
  hash ^= hash >> 32;
  return hash;
}

//===----------------------------------------------------------------------===//
// Footer and note
//===----------------------------------------------------------------------===//

struct Footer {
  uint32_t version = 0;
  uint32_t flags = 0;
  uint64_t libraryBytes = 0;
  uint64_t manifestBytes = 0;
  uint64_t totalBytes = 0;
  uint64_t checksum = 0;
};

/// The footer at the end of `file`, or nullopt if its magic is not there.
inline std::optional<Footer> readFooter(std::string_view file) {
  if (file.size() < kFooterBytes)
    return std::nullopt;
  const char *p = file.data() + file.size() - kFooterBytes;
  if (std::string_view(p, sizeof(kMagic)) !=
      std::string_view(kMagic, sizeof(kMagic)))
    return std::nullopt;
  Footer footer;
  footer.version = loadLE32(p + 8);
  footer.flags = loadLE32(p + 12);
  footer.libraryBytes = loadLE64(p + 16);
  footer.manifestBytes = loadLE64(p + 24);
  footer.totalBytes = loadLE64(p + 32);
  footer.checksum = loadLE64(p + kChecksumOffset);
  return footer;
}

/// The note as te-compile links it (T still 0): its bytes in the file.
constexpr std::array<unsigned char, kNoteBytes> unsealedNote() {
  return {4, 0, 0, 0,                        // namesz ("TEQ" and its NUL)
          kNoteDescriptorBytes, 0, 0, 0,     // descsz
          kNoteType, 0, 0, 0,                // type
          'T', 'E', 'Q', 0,                  // name
          kVersion, 0, 0, 0,                 // descriptor: version,
          0, 0, 0, 0,                        //   flags,
          0, 0, 0, 0, 0, 0, 0, 0};           //   T (written by seal())
}

struct Note {
  size_t descriptorOffset = 0; ///< File offset of the descriptor.
  uint32_t version = 0;
  uint32_t flags = 0;
  uint64_t totalBytes = 0; ///< T; 0 if the trailer was never written.
};

/// The TEQ note of an ELF64 little-endian file, found through its program
/// headers (PT_NOTE segments), or nullopt if it has none. Only the bytes
/// `file` has are read.
inline std::optional<Note> findNote(std::string_view file) {
  constexpr size_t kEhdrBytes = 64, kPhdrBytes = 56;
  constexpr uint32_t kPtNote = 4;
  const uint64_t size = file.size();
  const char *base = file.data();
  if (size < kEhdrBytes ||
      file.substr(0, 4) != std::string_view("\x7f" "ELF", 4) ||
      base[4] != 2 /*ELFCLASS64*/ || base[5] != 1 /*ELFDATA2LSB*/)
    return std::nullopt;
  const uint64_t phoff = loadLE64(base + 32);
  const uint32_t phentsize = loadLE32(base + 54) & 0xffff;
  const uint32_t phnum = loadLE32(base + 56) & 0xffff;
  if (phentsize < kPhdrBytes)
    return std::nullopt;
  for (uint32_t i = 0; i < phnum; ++i) {
    const uint64_t at = phoff + uint64_t(i) * phentsize;
    if (phoff > size || !inBounds(size, at, kPhdrBytes))
      return std::nullopt;
    const char *phdr = base + at;
    if (loadLE32(phdr) != kPtNote)
      continue;
    const uint64_t offset = loadLE64(phdr + 8), length = loadLE64(phdr + 32);
    const uint64_t align = loadLE64(phdr + 48) == 8 ? 8 : 4;
    if (!inBounds(size, offset, length))
      continue; // Cut off: nothing to read there.
    auto padded = [&](uint64_t n) { return (n + align - 1) / align * align; };
    for (uint64_t pos = 0; length - pos >= 12;) {
      const char *note = base + offset + pos;
      const uint64_t nameBytes = loadLE32(note), descBytes = loadLE32(note + 4);
      const uint32_t type = loadLE32(note + 8);
      const uint64_t descAt = 12 + padded(nameBytes);
      if (!inBounds(length - pos, descAt, descBytes))
        break;
      if (nameBytes == 4 && std::string_view(note + 12, 4) ==
                                std::string_view("TEQ\0", 4) &&
          type == kNoteType && descBytes == kNoteDescriptorBytes) {
        Note found;
        found.descriptorOffset = static_cast<size_t>(offset + pos + descAt);
        const char *desc = base + found.descriptorOffset;
        found.version = loadLE32(desc);
        found.flags = loadLE32(desc + 4);
        found.totalBytes = loadLE64(desc + 8);
        return found;
      }
      const uint64_t next = descAt + padded(descBytes);
      if (next > length - pos)
        break;
      pos += next;
    }
  }
  return std::nullopt;
}

/// Turns `library`, a shared library linked with the TEQ note, into an
/// artifact file: writes T into the note and appends `manifest` and the
/// footer. Returns why it cannot, or "" on success.
inline std::string seal(std::string &library, std::string_view manifest) {
  std::optional<Note> note = findNote(library);
  if (!note)
    return "the library has no TEQ note (an ELF64 little-endian shared "
           "library linked with te-compile's '" +
           std::string(kNoteSection) + "' section is expected)";
  if (readFooter(library))
    return "the library already ends with a TEQ trailer";
  const uint64_t libraryBytes = library.size();
  const uint64_t total = libraryBytes + manifest.size() + kFooterBytes;
  char *desc = library.data() + note->descriptorOffset;
  storeLE32(desc, kVersion);
  storeLE32(desc + 4, 0);
  storeLE64(desc + 8, total);
  library.append(manifest);
  char footer[kFooterBytes] = {};
  for (size_t i = 0; i < sizeof(kMagic); ++i)
    footer[i] = kMagic[i];
  storeLE32(footer + 8, kVersion);
  storeLE32(footer + 12, 0);
  storeLE64(footer + 16, libraryBytes);
  storeLE64(footer + 24, manifest.size());
  storeLE64(footer + 32, total);
  library.append(footer, kChecksumOffset);
  storeLE64(footer + kChecksumOffset, xxh64(library));
  library.append(footer + kChecksumOffset, kFooterBytes - kChecksumOffset);
  return std::string();
}

} // namespace artifact_file

//===----------------------------------------------------------------------===//
// Reading (libteq_runtime)
//===----------------------------------------------------------------------===//

/// The parts of a verified artifact file (views into its bytes).
struct ArtifactFileParts {
  std::string_view library;  ///< The ELF shared library, note included.
  std::string_view manifest; ///< The manifest's JSON text.
};

/// Checks the bytes of an artifact file: the footer is there, of a format
/// version this runtime reads; the lengths add up to the file's; the
/// checksum matches; the note records the same length. Errors say what is
/// wrong, without the path: "truncated: its TEQ note records 123456 bytes,
/// the file has 1000", "checksum mismatch: ...", "not a TEQ artifact (no
/// trailer)".
TEQ_RUNTIME_EXPORT StatusOr<ArtifactFileParts>
verifyArtifactFile(std::string_view file);

/// The whole file at `path` (regular files up to 4 GiB), or "cannot open the
/// file: <reason>".
TEQ_RUNTIME_EXPORT StatusOr<std::string> readFileBytes(const std::string &path);

/// The functions an ELF64 little-endian shared library exports: defined
/// global or weak FUNC (or IFUNC) symbols of default or protected visibility
/// in its dynamic symbol table, read without loading it.
TEQ_RUNTIME_EXPORT StatusOr<std::set<std::string>>
readExportedFunctions(std::string_view library);

/// Whether an ELF library is for the machine this runtime runs on; the error
/// reads "built for aarch64 (ELF machine 183), but this runtime runs on
/// x86_64".
TEQ_RUNTIME_EXPORT Status checkElfMachine(std::string_view library);

} // namespace mlir::teq::runtime

#endif // TEQ_RUNTIME_ARTIFACTFILE_H
