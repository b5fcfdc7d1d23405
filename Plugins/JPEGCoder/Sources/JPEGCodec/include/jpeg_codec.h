#ifndef JPEG_CODEC_H
#define JPEG_CODEC_H
#include <stdio.h>
#include <jpeglib.h>
#endif
