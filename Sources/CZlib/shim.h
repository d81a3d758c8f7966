// The system zlib (libz), for the Perfetto export's compressed packets
// (TracePacket.compressed_packets: zlib-wrapped deflate, as Perfetto's own ZlibCompressor
// writes them with deflateInit). deflateInit is a macro, so it is wrapped here.
#ifndef PIPESCOPE_CZLIB_SHIM_H
#define PIPESCOPE_CZLIB_SHIM_H

#if __has_include(<zlib.h>)
#include <zlib.h>
#else
#error "Pipescope's Perfetto export needs the zlib headers (zlib.h) and found none. Install zlib1g-dev: apt-get install -y zlib1g-dev"
#endif

static inline int pipescope_deflate_init(z_stream *stream, int level) {
    return deflateInit(stream, level);
}

#endif
