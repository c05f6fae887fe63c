// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#ifndef APNSKIT_KDF_H
#define APNSKIT_KDF_H
/*
 * The work a password-based encryption asks for, read from its parameters before any key
 * derivation runs. OpenSSL runs whatever iteration count a file names (it caps scrypt's
 * memory, not its time), so a .p12 or encrypted key crafted with 100,000,000 iterations kept
 * apnskit busy for minutes; these let the caller refuse it first.
 */
#include <stdint.h>
#include <openssl/pkcs12.h>
#include <openssl/x509.h>

/* Where a cost was found, for messages. */
enum { SHIM_KDF_MAC = 1, SHIM_KDF_CONTENTS = 2, SHIM_KDF_KEY = 3 };

typedef struct shim_kdf_cost {
    /* The largest iteration count seen (PBKDF2, PKCS#5 v1 and PKCS#12 PBE, the PKCS#12 MAC)
     * and where. Counts that do not read as 64-bit unsigned numbers are left to OpenSSL,
     * which rejects them without deriving anything. */
    uint64_t iterations;
    int iterations_where;
    /* The scrypt parameters with the largest N*r*p seen (all 0 when none) and where. */
    uint64_t scrypt_n, scrypt_r, scrypt_p;
    int scrypt_where;
} shim_kdf_cost;

/* Adds the cost of one algorithm identifier (PBES2 with PBKDF2 or scrypt, or a PKCS#5 v1 /
 * PKCS#12 PBE) to `cost`; anything else adds nothing. */
void shim_kdf_cost_add_algorithm(const X509_ALGOR *alg, int where, shim_kdf_cost *cost);

/* Adds the cost of an encrypted PKCS#8 key (EncryptedPrivateKeyInfo) in DER or PEM
 * ("ENCRYPTED PRIVATE KEY"); returns 0 when the bytes are not one. */
int shim_kdf_cost_add_pkcs8(const unsigned char *bytes, long length, int pem, shim_kdf_cost *cost);

/* Adds the cost of a PKCS#12 file: its MAC, its encrypted contents, and the key bags in its
 * plain contents. With `decrypt` it also decrypts the encrypted contents with `pass` to reach
 * the key bags inside them: call it so only after a call without `decrypt` came back within
 * bounds, since that decryption pays the contents' own cost. Returns 0 if the contents do
 * not unpack (OpenSSL's parser then reports the damage). */
int shim_kdf_cost_add_pkcs12(const PKCS12 *p12, int decrypt, const char *pass, int passlen, shim_kdf_cost *cost);
/* The name of the encryption of an encrypted PKCS#8 key (DER or PEM): the PBE scheme
 * (pbeWithMD5AndDES-CBC), or for PBES2 its cipher (aes-256-cbc). Writes a NUL-terminated name
 * into `name`; returns 0 when the bytes are not an encrypted PKCS#8 key. For messages. */
int shim_pkcs8_encryption_name(const unsigned char *bytes, long length, int pem, char *name, int capacity);
#endif
