// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#include "shim_p12.h"
#include <string.h>
#include <openssl/err.h>

void shim_p12_item_free(shim_p12_item *item) {
    X509_free(item->certificate);
    EVP_PKEY_free(item->key);
    OPENSSL_free(item->friendly_name);
    memset(item, 0, sizeof *item);
}

typedef struct walk {
    const char *pass;
    int passlen;
    shim_p12_item *items;
    int capacity;
    int count;
    int overflow;
    int totals[3]; /* by kind: certificates, keys */
} walk;

static void set_attributes(const PKCS12_SAFEBAG *bag, shim_p12_item *item) {
    item->friendly_name = PKCS12_get_friendlyname((PKCS12_SAFEBAG *)bag);
    const ASN1_TYPE *id = PKCS12_SAFEBAG_get0_attr(bag, NID_localKeyID);
    if (id != NULL && id->type == V_ASN1_OCTET_STRING && id->value.octet_string != NULL) {
        int length = ASN1_STRING_length(id->value.octet_string);
        if (length > (int)sizeof item->local_key_id) length = (int)sizeof item->local_key_id;
        memcpy(item->local_key_id, ASN1_STRING_get0_data(id->value.octet_string), (size_t)length);
        item->local_key_id_length = length;
    }
}

static EVP_PKEY *decrypt_key(const PKCS12_SAFEBAG *bag, const walk *w) {
    PKCS8_PRIV_KEY_INFO *info = PKCS12_decrypt_skey(bag, w->pass, w->passlen);
    if (info == NULL && w->passlen == 0) {
        ERR_clear_error();
        info = PKCS12_decrypt_skey(bag, w->pass == NULL ? "" : NULL, 0);
    }
    if (info == NULL) return NULL;
    EVP_PKEY *key = EVP_PKCS82PKEY(info);
    PKCS8_PRIV_KEY_INFO_free(info);
    return key;
}

/* 1 ok, 0 failure, -1 too many. Nested SafeContents bags are depth-limited. */
static int add_bags(const STACK_OF(PKCS12_SAFEBAG) *bags, int depth, walk *w) {
    if (bags == NULL) return 0;
    if (depth > 8) return 0;
    for (int i = 0; i < sk_PKCS12_SAFEBAG_num(bags); i++) {
        const PKCS12_SAFEBAG *bag = sk_PKCS12_SAFEBAG_value(bags, i);
        int nid = PKCS12_SAFEBAG_get_nid(bag);
        if (nid == NID_safeContentsBag) {
            int result = add_bags(PKCS12_SAFEBAG_get0_safes(bag), depth + 1, w);
            if (result != 1) return result;
            continue;
        }
        shim_p12_item item;
        memset(&item, 0, sizeof item);
        if (nid == NID_keyBag) {
            const PKCS8_PRIV_KEY_INFO *info = PKCS12_SAFEBAG_get0_p8inf(bag);
            item.key = info != NULL ? EVP_PKCS82PKEY(info) : NULL;
            if (item.key == NULL) return 0;
            item.kind = SHIM_P12_KEY;
        } else if (nid == NID_pkcs8ShroudedKeyBag) {
            item.key = decrypt_key(bag, w);
            if (item.key == NULL) return 0;
            item.kind = SHIM_P12_KEY;
        } else if (nid == NID_certBag) {
            if (PKCS12_SAFEBAG_get_bag_nid(bag) != NID_x509Certificate) continue;
            item.certificate = PKCS12_SAFEBAG_get1_cert(bag);
            if (item.certificate == NULL) return 0;
            item.kind = SHIM_P12_CERTIFICATE;
        } else {
            continue; /* CRL and secret bags carry nothing apnskit uses */
        }
        w->totals[item.kind]++;
        if (w->count >= w->capacity) {
            /* Keep counting (the message says how many), keep nothing. */
            shim_p12_item_free(&item);
            w->overflow = 1;
            continue;
        }
        set_attributes(bag, &item);
        w->items[w->count++] = item;
    }
    return 1;
}

int shim_p12_items(const PKCS12 *p12, const char *pass, int passlen, shim_p12_item *items, int capacity, int *count,
                   int *certificates, int *keys) {
    walk w = { pass, passlen, items, capacity, 0, 0, { 0, 0, 0 } };
    int result = 1;
    STACK_OF(PKCS7) *safes = PKCS12_unpack_authsafes(p12);
    if (safes == NULL) result = 0;
    for (int i = 0; result == 1 && i < sk_PKCS7_num(safes); i++) {
        PKCS7 *safe = sk_PKCS7_value(safes, i);
        STACK_OF(PKCS12_SAFEBAG) *bags = NULL;
        int nid = OBJ_obj2nid(safe->type);
        if (nid == NID_pkcs7_data) {
            bags = PKCS12_unpack_p7data(safe);
        } else if (nid == NID_pkcs7_encrypted) {
            bags = PKCS12_unpack_p7encdata(safe, pass, passlen);
            if (bags == NULL && passlen == 0) {
                ERR_clear_error();
                bags = PKCS12_unpack_p7encdata(safe, pass == NULL ? "" : NULL, 0);
            }
        } else {
            continue; /* enveloped (public-key) contents: not something Keychain or OpenSSL write */
        }
        if (bags == NULL) { result = 0; break; }
        result = add_bags(bags, 0, &w);
        sk_PKCS12_SAFEBAG_pop_free(bags, PKCS12_SAFEBAG_free);
    }
    sk_PKCS7_pop_free(safes, PKCS7_free);
    *count = w.count;
    *certificates = w.totals[SHIM_P12_CERTIFICATE];
    *keys = w.totals[SHIM_P12_KEY];
    if (result == 1 && w.overflow) result = -1;
    if (result != 1) {
        for (int i = 0; i < w.count; i++) shim_p12_item_free(&items[i]);
    }
    return result;
}
