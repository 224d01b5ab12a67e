//===- ArtifactFile.cpp - Checking an artifact file before loading it -----===//
//
// An artifact is native code: a damaged file (truncated, a flipped byte in a
// relocation) crashes the dynamic loader, so the runtime reads the whole file
// and checks its trailer and checksum first (teq/Runtime/ArtifactFile.h), and
// reads the manifest and the exported symbols from the checked bytes.
//
//===----------------------------------------------------------------------===//

#include "teq/Runtime/ArtifactFile.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <system_error>

namespace mlir::teq::runtime {

using namespace artifact_file;

namespace {

std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%016llx",
                static_cast<unsigned long long>(value));
  return text;
}

std::string errnoMessage(int error) {
  return std::error_code(error, std::generic_category()).message();
}

/// The ELF64 little-endian file header fields the runtime reads.
struct ElfHeader {
  uint16_t type = 0;
  uint16_t machine = 0;
  uint64_t shoff = 0;
  uint16_t shentsize = 0;
  uint16_t shnum = 0;
};

StatusOr<ElfHeader> readElfHeader(std::string_view file) {
  if (file.size() < sizeof(Elf64_Ehdr) ||
      file.substr(0, SELFMAG) != std::string_view(ELFMAG, SELFMAG))
    return Status::error("not an ELF file");
  if (file[EI_CLASS] != ELFCLASS64 || file[EI_DATA] != ELFDATA2LSB)
    return Status::error("not a 64-bit little-endian ELF file");
  const char *base = file.data();
  ElfHeader header;
  header.type = static_cast<uint16_t>(loadLE32(base + 16));
  header.machine = static_cast<uint16_t>(loadLE32(base + 18));
  header.shoff = loadLE64(base + 40);
  header.shentsize = static_cast<uint16_t>(loadLE32(base + 58));
  header.shnum = static_cast<uint16_t>(loadLE32(base + 60));
  if (header.type != ET_DYN)
    return Status::error("not a shared library (ELF type " +
                         std::to_string(header.type) + ")");
  return header;
}

/// One section header, bounds-checked against the file.
struct Section {
  uint32_t type = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t link = 0;
  uint64_t entsize = 0;
};

StatusOr<Section> readSection(std::string_view file, const ElfHeader &header,
                              uint32_t index) {
  const uint64_t at = header.shoff + uint64_t(index) * header.shentsize;
  if (header.shentsize < sizeof(Elf64_Shdr) || header.shoff > file.size() ||
      !inBounds(file.size(), at, sizeof(Elf64_Shdr)))
    return Status::error("damaged ELF section headers");
  const char *shdr = file.data() + at;
  Section section;
  section.type = loadLE32(shdr + 4);
  section.offset = loadLE64(shdr + 24);
  section.size = loadLE64(shdr + 32);
  section.link = loadLE32(shdr + 40);
  section.entsize = loadLE64(shdr + 56);
  if (section.type != SHT_NOBITS &&
      !inBounds(file.size(), section.offset, section.size))
    return Status::error("damaged ELF section " + std::to_string(index) +
                         ": it extends past the end of the library");
  return section;
}

const char *machineName(uint16_t machine) {
  switch (machine) {
  case EM_X86_64:
    return "x86_64";
  case EM_AARCH64:
    return "aarch64";
  case EM_PPC64:
    return "ppc64";
  case EM_RISCV:
    return "riscv";
  case EM_386:
    return "i386";
  case EM_ARM:
    return "arm";
  default:
    return "another machine";
  }
}

constexpr uint16_t hostMachine() {
#if defined(__x86_64__)
  return EM_X86_64;
#elif defined(__aarch64__)
  return EM_AARCH64;
#elif defined(__powerpc64__)
  return EM_PPC64;
#elif defined(__riscv)
  return EM_RISCV;
#else
  return EM_NONE;
#endif
}

} // namespace

StatusOr<ArtifactFileParts> verifyArtifactFile(std::string_view file) {
  const uint64_t size = file.size();
  const std::string has = ", the file has " + std::to_string(size);
  std::optional<Footer> footer = readFooter(file);
  if (!footer) {
    // No trailer at the end: the note, near the start, tells a truncated or
    // extended artifact from a file that never was one.
    std::optional<Note> note = findNote(file);
    if (!note)
      return Status::error("not a TEQ artifact (no trailer)");
    const std::string records =
        "its TEQ note records " + std::to_string(note->totalBytes) + " bytes";
    if (note->totalBytes == 0)
      return Status::error(
          "not sealed: the library has a TEQ note but no trailer (te-compile "
          "appends it after linking; a library linked by hand needs te-seal)");
    if (size < note->totalBytes)
      return Status::error("truncated: " + records + has);
    if (size > note->totalBytes)
      return Status::error("extended: " + records + has +
                           " (bytes were appended after the trailer)");
    return Status::error("damaged trailer: " + records +
                         ", but the file does not end with a TEQ trailer");
  }
  if (footer->version != kVersion)
    return Status::error(
        "unsupported trailer format version " +
        std::to_string(footer->version) + " (this runtime reads version " +
        std::to_string(kVersion) + "; written by another te-compile?)");
  if (footer->flags != 0)
    return Status::error("unsupported trailer flags " + hex(footer->flags));
  if (footer->totalBytes > size)
    return Status::error("truncated: the trailer says " +
                         std::to_string(footer->totalBytes) + " bytes" + has);
  if (footer->totalBytes < size)
    return Status::error("extended: the trailer says " +
                         std::to_string(footer->totalBytes) + " bytes" + has);
  if (footer->libraryBytes > size || footer->manifestBytes > size ||
      footer->libraryBytes + footer->manifestBytes + kFooterBytes != size)
    return Status::error(
        "damaged trailer: library (" + std::to_string(footer->libraryBytes) +
        " bytes), manifest (" + std::to_string(footer->manifestBytes) +
        " bytes) and footer (" + std::to_string(kFooterBytes) +
        " bytes) do not add up to the file's " + std::to_string(size) +
        " bytes");
  const uint64_t checksum =
      xxh64(file.substr(0, size - kFooterBytes + kChecksumOffset));
  if (checksum != footer->checksum)
    return Status::error(
        "checksum mismatch: the file changed after te-compile wrote it (its "
        "trailer records XXH64 " + hex(footer->checksum) +
        ", its contents hash to " + hex(checksum) + ")");

  ArtifactFileParts parts;
  parts.library = file.substr(0, footer->libraryBytes);
  parts.manifest = file.substr(footer->libraryBytes, footer->manifestBytes);
  std::optional<Note> note = findNote(parts.library);
  if (!note)
    return Status::error("the library has no TEQ note");
  if (note->totalBytes != size)
    return Status::error("its TEQ note records " +
                         std::to_string(note->totalBytes) +
                         " bytes, its trailer " + std::to_string(size));
  return parts;
}

StatusOr<std::string> readFileBytes(const std::string &path) {
  // Read, not mapped: a file that shrinks while it is mapped raises SIGBUS.
  constexpr uint64_t kLimit = uint64_t(1) << 32;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Status::error("cannot open the file: " + errnoMessage(errno));
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    int error = errno;
    ::close(fd);
    return Status::error("cannot open the file: " + errnoMessage(error));
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    return Status::error("not a regular file");
  }
  if (static_cast<uint64_t>(info.st_size) > kLimit) {
    ::close(fd);
    return Status::error("the file has " + std::to_string(info.st_size) +
                         " bytes, more than an artifact can have (4 GiB)");
  }
  std::string bytes(static_cast<size_t>(info.st_size), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t got = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      int error = errno;
      ::close(fd);
      return Status::error("cannot read the file: " + errnoMessage(error));
    }
    if (got == 0)
      break; // Shrunk since fstat: what was read is checked as it is.
    done += static_cast<size_t>(got);
  }
  ::close(fd);
  bytes.resize(done);
  return bytes;
}

StatusOr<std::set<std::string>>
readExportedFunctions(std::string_view library) {
  auto header = readElfHeader(library);
  if (!header.ok())
    return header.status();
  std::optional<Section> dynsym;
  for (uint32_t i = 0; i < header->shnum && !dynsym; ++i) {
    auto section = readSection(library, *header, i);
    if (!section.ok())
      return section.status();
    if (section->type == SHT_DYNSYM)
      dynsym = *section;
  }
  if (!dynsym)
    return Status::error("the library has no dynamic symbol table");
  if (dynsym->link >= header->shnum)
    return Status::error("damaged dynamic symbol table (no string table)");
  auto strtab = readSection(library, *header, dynsym->link);
  if (!strtab.ok())
    return strtab.status();
  const uint64_t entsize =
      dynsym->entsize ? dynsym->entsize : sizeof(Elf64_Sym);
  if (entsize < sizeof(Elf64_Sym) || strtab->type != SHT_STRTAB)
    return Status::error("damaged dynamic symbol table");
  const std::string_view names = library.substr(strtab->offset, strtab->size);

  std::set<std::string> exported;
  for (uint64_t at = entsize; at + sizeof(Elf64_Sym) <= dynsym->size;
       at += entsize) {
    const char *sym = library.data() + dynsym->offset + at;
    const uint32_t name = loadLE32(sym);
    const unsigned char info = static_cast<unsigned char>(sym[4]);
    const unsigned char other = static_cast<unsigned char>(sym[5]);
    const uint16_t sectionIndex = static_cast<uint16_t>(loadLE32(sym + 6));
    const unsigned bind = ELF64_ST_BIND(info), type = ELF64_ST_TYPE(info);
    const unsigned visibility = ELF64_ST_VISIBILITY(other);
    if (sectionIndex == SHN_UNDEF ||
        (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE) ||
        (type != STT_FUNC && type != STT_GNU_IFUNC) ||
        (visibility != STV_DEFAULT && visibility != STV_PROTECTED))
      continue;
    if (name >= names.size())
      return Status::error("damaged dynamic symbol table (a name is outside "
                           "its string table)");
    const size_t end = names.find('\0', name);
    if (end == std::string_view::npos)
      return Status::error("damaged dynamic string table (unterminated)");
    exported.insert(std::string(names.substr(name, end - name)));
  }
  return exported;
}

Status checkElfMachine(std::string_view library) {
  auto header = readElfHeader(library);
  if (!header.ok())
    return header.status();
  const uint16_t host = hostMachine();
  if (host != EM_NONE && header->machine != host)
    return Status::error(std::string("built for ") +
                         machineName(header->machine) + " (ELF machine " +
                         std::to_string(header->machine) +
                         "), but this runtime runs on " + machineName(host));
  return Status::success();
}

} // namespace mlir::teq::runtime
