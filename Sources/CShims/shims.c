// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#include "CShims.h"
#include <string.h>
#include <openssl/crypto.h>

long shim_BIO_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }
void shim_OPENSSL_free(void *ptr) { OPENSSL_free(ptr); }

int shim_sk_X509_num(const STACK_OF(X509) *stack) { return stack ? sk_X509_num(stack) : 0; }
X509 *shim_sk_X509_value(const STACK_OF(X509) *stack, int index) { return sk_X509_value(stack, index); }
STACK_OF(X509) *shim_sk_X509_new_null(void) { return sk_X509_new_null(); }
int shim_sk_X509_push_up_ref(STACK_OF(X509) *stack, X509 *cert) {
    if (!X509_up_ref(cert)) return 0;
    if (sk_X509_push(stack, cert) <= 0) { X509_free(cert); return 0; }
    return 1;
}
void shim_sk_X509_pop_free(STACK_OF(X509) *stack) { sk_X509_pop_free(stack, X509_free); }

int shim_passphrase_cb(char *buf, int size, int rwflag, void *userdata) {
    (void)rwflag;
    shim_passphrase *pass = (shim_passphrase *)userdata;
    if (pass == NULL) return -1;
    pass->requested = 1;
    if (pass->bytes == NULL || size <= 0) return -1;
    int n = pass->length < size ? pass->length : size;
    memcpy(buf, pass->bytes, (size_t)n);
    return n;
}
