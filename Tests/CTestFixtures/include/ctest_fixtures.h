// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#ifndef APNSKIT_CTEST_FIXTURES_H
#define APNSKIT_CTEST_FIXTURES_H
/*
 * Test fixtures that only OpenSSL's lower-level API can make (the `openssl` CLI cannot).
 */

/* Writes to `out_path` a PKCS#12 file (DER) whose shrouded key bag, encrypted with
 * `key_iterations` PBKDF2 iterations, sits inside an encrypted safe (`safe_iterations`, as
 * for the SHA-256 MAC) together with the certificate. OpenSSL's PKCS12_create always puts the key bag in a plain
 * safe, where its parameters can be read without the password; a crafted file need not.
 * Returns 1 on success. */
int apns_test_write_p12_key_in_encrypted_safe(const char *cert_pem, const char *key_pem, const char *pass,
                                              int key_iterations, int safe_iterations, const char *out_path);

/* Writes a PKCS#12 file holding the certificate and `copies` shrouded key bags of the same key
 * (plain safe, one iteration each): more keys than any real export, for the key-count bound.
 * Returns 1 on success. */
int apns_test_write_p12_many_keys(const char *cert_pem, const char *key_pem, const char *pass, int copies, const char *out_path);

/* Shared by the writers above: reads a PEM certificate and an unencrypted PEM key. */
#include <openssl/x509.h>
#include <openssl/evp.h>
void apns_test_read_identity(const char *cert_pem, const char *key_pem, X509 **cert, EVP_PKEY **key);
/* Shared by the writers above: wraps safes into a PKCS#12 with a SHA-256 MAC and writes it. */
#include <openssl/pkcs12.h>
int apns_test_write_safes(STACK_OF(PKCS7) *safes, const char *pass, int mac_iterations, const char *out_path);
#endif
