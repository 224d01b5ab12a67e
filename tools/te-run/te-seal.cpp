//===- te-seal.cpp - Write or read the trailer of a TEQ artifact ----------===//
//
//   te-seal FILE --manifest JSON [-o OUT] [--unchecked]
//   te-seal ARTIFACT --print-manifest
//
// te-compile seals every library it links (docs/Artifact.md, "The artifact
// file"): it records the file's length in the library's TEQ note and appends
// the manifest, the length and an XXH64 checksum, which the runtime checks
// before it loads any code. te-seal does the same for a library linked by
// hand (te-compile --emit=obj, then the system linker) and for the stand-in
// artifacts of the unit tests; given an artifact, it replaces its manifest
// (a new trailer, a new checksum).
//
// What te-seal writes is checked the way the runtime opens it
// (Artifact::inspect: trailer, manifest, entry symbols); if that fails,
// nothing is written. --unchecked skips that check: the tests of those checks
// use it to make artifacts whose trailer is intact but whose manifest is
// wrong. --print-manifest prints the manifest of a verified artifact (the
// manifest is not validated, so a bad one can be read, edited and resealed).
//
// Runtime-only: the trailer format is teq/Runtime/ArtifactFile.h.
//
//===----------------------------------------------------------------------===//

#include "teq/Runtime/Artifact.h"
#include "teq/Runtime/ArtifactFile.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

using namespace mlir::teq::runtime;

namespace {

const char *kUsage =
    "usage: te-seal FILE --manifest JSON [-o OUT] [--unchecked]\n"
    "       te-seal ARTIFACT --print-manifest\n"
    "\n"
    "Writes the trailer of a TEQ artifact (the manifest, the file's length and\n"
    "its checksum; docs/Artifact.md) after a library linked with te-compile's\n"
    "TEQ note, or replaces the manifest of an artifact.\n"
    "\n"
    "  --manifest JSON  the manifest to write (a file)\n"
    "  -o OUT           where to write (default: FILE, in place)\n"
    "  --unchecked      do not check what is written as the runtime would\n"
    "                   (for tests of those checks)\n"
    "  --print-manifest print the manifest of ARTIFACT\n";

int fail(const std::string &message) {
  std::fprintf(stderr, "te-seal: error: %s\n", message.c_str());
  return 1;
}

/// The library of `file`: the bytes before the trailer of a verified
/// artifact, or the whole file if it is a library that was never sealed.
StatusOr<std::string> libraryOf(const std::string &file) {
  if (!artifact_file::readFooter(file)) {
    std::optional<artifact_file::Note> note = artifact_file::findNote(file);
    if (note && note->totalBytes == 0)
      return file;
  }
  auto parts = verifyArtifactFile(file);
  if (!parts.ok())
    return parts.status();
  return std::string(parts->library);
}

/// Writes `bytes` to `path` through a temporary file in its directory, with
/// the permissions `mode`; with `check`, keeps it only if the runtime can
/// inspect it.
Status writeArtifact(const std::string &path, const std::string &bytes,
                     mode_t mode, bool check) {
  const std::string temporary =
      path + ".te-seal-" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out)
      return Status::error("cannot write '" + temporary + "'");
  }
  (void)::chmod(temporary.c_str(), mode);
  if (check) {
    auto manifest = Artifact::inspect(temporary);
    if (!manifest.ok()) {
      std::remove(temporary.c_str());
      // Name the output, not the temporary file.
      std::string message = manifest.message();
      const std::string prefix = "artifact '" + temporary + "'";
      if (message.rfind(prefix, 0) == 0)
        message = "artifact '" + path + "'" + message.substr(prefix.size());
      return Status::error(message + " (nothing written; --unchecked writes "
                                     "it anyway)");
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    return Status::error("cannot write '" + path +
                         "': " + std::strerror(errno));
  }
  return Status::success();
}

} // namespace

int main(int argc, char **argv) {
  std::string input, manifestPath, output;
  bool print = false, unchecked = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> const char * {
      return i + 1 < argc ? argv[++i] : nullptr;
    };
    if (arg == "--help" || arg == "-h") {
      std::printf("%s", kUsage);
      return 0;
    }
    if (arg == "--print-manifest") {
      print = true;
    } else if (arg == "--unchecked") {
      unchecked = true;
    } else if (arg == "--manifest" || arg == "-o") {
      const char *text = value();
      if (!text)
        return fail(arg + " needs a value\n\n" + kUsage);
      (arg == "-o" ? output : manifestPath) = text;
    } else if (!arg.empty() && arg[0] == '-') {
      return fail("unknown option '" + arg + "'\n\n" + kUsage);
    } else if (input.empty()) {
      input = arg;
    } else {
      return fail(std::string("more than one input file\n\n") + kUsage);
    }
  }
  if (input.empty() || print == !manifestPath.empty())
    return fail(std::string("give a file and either --manifest or "
                            "--print-manifest\n\n") +
                kUsage);

  auto file = readFileBytes(input);
  if (!file.ok())
    return fail("'" + input + "': " + file.message());
  if (print) {
    auto parts = verifyArtifactFile(*file);
    if (!parts.ok())
      return fail("artifact '" + input + "': " + parts.message());
    std::fwrite(parts->manifest.data(), 1, parts->manifest.size(), stdout);
    std::fputc('\n', stdout);
    return 0;
  }

  auto manifest = readFileBytes(manifestPath);
  if (!manifest.ok())
    return fail("'" + manifestPath + "': " + manifest.message());
  auto library = libraryOf(*file);
  if (!library.ok())
    return fail("'" + input + "': " + library.message());
  std::string bytes = std::move(*library);
  std::string why = artifact_file::seal(bytes, *manifest);
  if (!why.empty())
    return fail("'" + input + "': " + why);
  struct stat info;
  mode_t mode = ::stat(input.c_str(), &info) == 0 ? info.st_mode & 07777 : 0755;
  Status written = writeArtifact(output.empty() ? input : output, bytes, mode,
                                 !unchecked);
  if (!written.ok())
    return fail(written.message());
  return 0;
}
