/* OpenSSL's libcrypto, for the one digest the S3 client needs: SHA-256 (SigV4's payload hash, which S3 checks
 * against the body it receives, and the S3 result tier's object names). libcurl already links it at run time. */
#ifndef IMAGEPIPE_CCRYPTO_SHIM_H
#define IMAGEPIPE_CCRYPTO_SHIM_H

#include <openssl/sha.h>

#endif
