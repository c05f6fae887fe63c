// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#include "ctest_fixtures.h"
#include <openssl/pem.h>
#include <openssl/pkcs12.h>

int apns_test_write_p12_many_keys(const char *cert_pem, const char *key_pem, const char *pass, int copies, const char *out_path) {
    int ok = 0;
    X509 *cert = NULL;
    EVP_PKEY *key = NULL;
    STACK_OF(PKCS12_SAFEBAG) *bags = NULL;
    STACK_OF(PKCS7) *safes = NULL;
    apns_test_read_identity(cert_pem, key_pem, &cert, &key);
    if (cert == NULL || key == NULL) goto done;
    if (PKCS12_add_cert(&bags, cert) == NULL) goto done;
    for (int i = 0; i < copies; i++) {
        /* One iteration each: the bound under test is the count, not the derivation cost. */
        if (PKCS12_add_key(&bags, key, 0, 1, NID_aes_256_cbc, pass) == NULL) goto done;
    }
    if (!PKCS12_add_safe(&safes, bags, -1, 0, NULL)) goto done;
    ok = apns_test_write_safes(safes, pass, 1, out_path);
done:
    sk_PKCS7_pop_free(safes, PKCS7_free);
    sk_PKCS12_SAFEBAG_pop_free(bags, PKCS12_SAFEBAG_free);
    EVP_PKEY_free(key);
    X509_free(cert);
    return ok;
}
