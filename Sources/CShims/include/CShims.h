// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#ifndef APNSKIT_CSHIMS_H
#define APNSKIT_CSHIMS_H
/*
 * Wrappers for the parts of OpenSSL's API that Swift cannot import directly:
 * function-like macros (BIO_get_mem_data, OPENSSL_free, the sk_X509 family) and
 * C callbacks that must never prompt on a terminal behind the user's back.
 */
#include <stddef.h>
#include <openssl/bio.h>
#include <openssl/x509.h>
#include <openssl/pem.h>
#include "shim_files.h"
#include "shim_tty.h"
#include "shim_ca.h"
#include "shim_tls.h"
#include "shim_kdf.h"
#include "shim_cms.h"
#include "shim_p12.h"
#include "shim_search.h"
#include "event_poll.h"
#include "loop_thread.h"
#include "shim_atomic.h"
#include "shim_pool.h"

/* ---- memory BIOs and frees ---- */
long shim_BIO_get_mem_data(BIO *bio, char **data);
void shim_OPENSSL_free(void *ptr);

/* ---- STACK_OF(X509) ---- */
int shim_sk_X509_num(const STACK_OF(X509) *stack);
X509 *shim_sk_X509_value(const STACK_OF(X509) *stack, int index);
STACK_OF(X509) *shim_sk_X509_new_null(void);
/* Pushes `cert` (taking a new reference) onto the stack; returns 0 on failure. */
int shim_sk_X509_push_up_ref(STACK_OF(X509) *stack, X509 *cert);
void shim_sk_X509_pop_free(STACK_OF(X509) *stack);

/* ---- passphrases ----
 * A passphrase handed to OpenSSL's PEM/decoder callbacks. `requested` is set when OpenSSL
 * asked for one, so callers can tell "encrypted but no passphrase given" from "corrupt". */
typedef struct shim_passphrase {
    const char *bytes;   /* may be NULL: no passphrase available */
    int length;
    int requested;
} shim_passphrase;

/* pem_password_cb that answers from an shim_passphrase and never prompts. */
int shim_passphrase_cb(char *buf, int size, int rwflag, void *userdata);

#endif
