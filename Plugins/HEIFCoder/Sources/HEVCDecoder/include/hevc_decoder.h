#ifndef IMAGEPIPE_HEVC_DECODER_H
#define IMAGEPIPE_HEVC_DECODER_H

/* A libheif decoder plugin for HEVC that drives libde265 with a chosen number of worker threads.
 *
 * Why it exists: libheif 1.15's built-in libde265 plugin always starts exactly one worker thread, so a
 * single-image HEIC (no grid) decodes on one core however many the machine has. libde265 itself decodes
 * wavefront (WPP) and tiled bitstreams in parallel, and x265 and phone encoders write WPP by default. This
 * plugin is the same wiring (4-byte length-prefixed NAL units in, the first decoded picture out, the VUI's
 * colour description attached as nclx so libheif converts colour exactly as with its own plugin) with the
 * thread count made a setting. libheif picks it over its own because it registers with a higher priority. */

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the decoder with libheif once per process; later calls do nothing. Returns 1 when registered,
 * 0 when libheif refused it (the built-in decoder then stays in use). Call after heif_init. */
int ip_hevc_decoder_install(void);

/* Worker threads the decoders created on the calling thread start (clamped to 0...64; 0, the default, decodes on
 * the decoding thread). Per thread, because libheif creates decoders without passing any context: a single coded
 * picture is decoded on the thread that asked (which set this just before), while the tiles of a grid are decoded
 * on libheif's own threads, which keep the default 0 (tile-level parallelism instead of workers per tile). */
void ip_hevc_decoder_set_worker_threads(int count);

/* Largest decoded picture, in luma samples, the decoder hands back on the calling thread (0, the default = no cap;
 * libheif's own limits and the host's allocation check still apply). A bitstream whose SPS claims more than the
 * container's `ispe` said is refused instead of copied. Per thread like the worker count: a process-wide value
 * let one request's tight limit refuse another request's picture decoded at the same time. */
void ip_hevc_decoder_set_max_pixels(unsigned long long pixels);

/* Pictures this decoder has produced in this process: lets the coder report which decoder ran. */
unsigned long long ip_hevc_decoder_pictures_decoded(void);

#ifdef __cplusplus
}
#endif

#endif
