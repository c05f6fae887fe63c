// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#ifndef APNSKIT_P12_H
#define APNSKIT_P12_H
/*
 * Every certificate and key in a PKCS#12 file, with the friendlyName and localKeyId each bag
 * carries. PKCS12_parse returns one key and one certificate and files every other certificate
 * under "ca", so a file with several identities (node-apn and pushy ship such files) lost all
 * but the first key and turned the other leaves into "chain"; this walks the bags instead.
 */
#include <openssl/pkcs12.h>
#include <openssl/x509.h>

enum { SHIM_P12_CERTIFICATE = 1, SHIM_P12_KEY = 2 };

typedef struct shim_p12_item {
    int kind;                       /* SHIM_P12_CERTIFICATE or SHIM_P12_KEY */
    X509 *certificate;              /* owned by the caller (X509_free) */
    EVP_PKEY *key;                  /* owned by the caller (EVP_PKEY_free) */
    char *friendly_name;            /* UTF-8 or NULL; owned by the caller (OPENSSL_free) */
    unsigned char local_key_id[64]; /* the first bytes of localKeyId */
    int local_key_id_length;        /* 0 when the bag has none */
} shim_p12_item;

/* Decrypts and collects up to `capacity` items into `items` and sets `*count`, and the number
 * of certificates and keys seen in `*certificates` and `*keys`. `pass` with `passlen` 0 is
 * tried in both encodings of the empty password, as PKCS12_parse does. Returns 1 on success,
 * 0 when a bag does not decrypt or decode (OpenSSL's error queue says why), -1 when the file
 * holds more than `capacity` items (the totals then say how many). On failure every item
 * collected is freed. */
int shim_p12_items(const PKCS12 *p12, const char *pass, int passlen, shim_p12_item *items, int capacity, int *count,
                   int *certificates, int *keys);

/* Frees what one item owns. */
void shim_p12_item_free(shim_p12_item *item);
#endif
