// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#include "ctest_fixtures.h"
#include <openssl/pem.h>
#include <openssl/pkcs12.h>

/* Reads the certificate and the unencrypted key both fixtures start from; either is left NULL
 * when its file cannot be read, which the callers check. */
void apns_test_read_identity(const char *cert_pem, const char *key_pem, X509 **cert, EVP_PKEY **key) {
    BIO *in = BIO_new_file(cert_pem, "r");
    if (in != NULL) *cert = PEM_read_bio_X509(in, NULL, NULL, NULL);
    BIO_free(in);
    in = BIO_new_file(key_pem, "r");
    if (in != NULL) *key = PEM_read_bio_PrivateKey(in, NULL, NULL, NULL);
    BIO_free(in);
}

/* Wraps the caller's safes into a PKCS#12 with a SHA-256 MAC of `mac_iterations` and writes it
 * (DER) to `out_path`; the safes stay the caller's. Returns 1 on success. */
int apns_test_write_safes(STACK_OF(PKCS7) *safes, const char *pass, int mac_iterations, const char *out_path) {
    int ok = 0;
    BIO *out = NULL;
    PKCS12 *p12 = PKCS12_add_safes(safes, 0);
    if (p12 == NULL || !PKCS12_set_mac(p12, pass, -1, NULL, 0, mac_iterations, EVP_sha256())) goto done;
    out = BIO_new_file(out_path, "wb");
    ok = out != NULL && i2d_PKCS12_bio(out, p12) == 1;
done:
    BIO_free(out);
    PKCS12_free(p12);
    return ok;
}

int apns_test_write_p12_key_in_encrypted_safe(const char *cert_pem, const char *key_pem, const char *pass,
                                              int key_iterations, int safe_iterations, const char *out_path) {
    int ok = 0;
    X509 *cert = NULL;
    EVP_PKEY *key = NULL;
    STACK_OF(PKCS12_SAFEBAG) *bags = NULL;
    STACK_OF(PKCS7) *safes = NULL;
    apns_test_read_identity(cert_pem, key_pem, &cert, &key);
    if (cert == NULL || key == NULL) goto done;
    if (PKCS12_add_cert(&bags, cert) == NULL) goto done;
    if (PKCS12_add_key(&bags, key, 0, key_iterations, NID_aes_256_cbc, pass) == NULL) goto done;
    if (!PKCS12_add_safe(&safes, bags, NID_aes_256_cbc, safe_iterations, pass)) goto done;
    ok = apns_test_write_safes(safes, pass, safe_iterations, out_path);
done:
    sk_PKCS7_pop_free(safes, PKCS7_free);
    sk_PKCS12_SAFEBAG_pop_free(bags, PKCS12_SAFEBAG_free);
    EVP_PKEY_free(key);
    X509_free(cert);
    return ok;
}
