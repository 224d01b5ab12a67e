//===- Export.h - Symbol visibility of libteq_runtime.so ------------*- C++ -*-===//
//
// libteq_runtime.so is built with hidden visibility; what carries
// TEQ_RUNTIME_EXPORT is its public interface (the C++ API and the mgpu*
// functions artifacts call).
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_RUNTIME_EXPORT_H
#define TEQ_RUNTIME_EXPORT_H

#if defined(_WIN32)
#define TEQ_RUNTIME_EXPORT
#else
#define TEQ_RUNTIME_EXPORT __attribute__((visibility("default")))
#endif

#endif // TEQ_RUNTIME_EXPORT_H
