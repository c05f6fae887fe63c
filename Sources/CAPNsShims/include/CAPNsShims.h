#ifndef APNSKIT_CAPNSSHIMS_H
#define APNSKIT_CAPNSSHIMS_H
/*
 * Wrappers for the parts of OpenSSL's API that Swift cannot import directly:
 * function-like macros (BIO_get_mem_data, OPENSSL_free, the sk_X509 family) and
 * C callbacks that must never prompt on a terminal behind the user's back.
 */
#include <stddef.h>
#include <openssl/bio.h>
#include <openssl/x509.h>
#include <openssl/pem.h>
#include "apns_files.h"
#include "apns_tty.h"
#include "apns_ca.h"
#include "apns_tls.h"
#include "apns_kdf.h"
#include "apns_cms.h"
#include "apns_p12.h"
#include "apns_search.h"
#include "event_poll.h"

/* ---- memory BIOs and frees ---- */
long apns_BIO_get_mem_data(BIO *bio, char **data);
void apns_OPENSSL_free(void *ptr);

/* ---- STACK_OF(X509) ---- */
int apns_sk_X509_num(const STACK_OF(X509) *stack);
X509 *apns_sk_X509_value(const STACK_OF(X509) *stack, int index);
STACK_OF(X509) *apns_sk_X509_new_null(void);
/* Pushes `cert` (taking a new reference) onto the stack; returns 0 on failure. */
int apns_sk_X509_push_up_ref(STACK_OF(X509) *stack, X509 *cert);
void apns_sk_X509_pop_free(STACK_OF(X509) *stack);

/* ---- passphrases ----
 * A passphrase handed to OpenSSL's PEM/decoder callbacks. `requested` is set when OpenSSL
 * asked for one, so callers can tell "encrypted but no passphrase given" from "corrupt". */
typedef struct apns_passphrase {
    const char *bytes;   /* may be NULL: no passphrase available */
    int length;
    int requested;
} apns_passphrase;

/* pem_password_cb that answers from an apns_passphrase and never prompts. */
int apns_passphrase_cb(char *buf, int size, int rwflag, void *userdata);

#endif
