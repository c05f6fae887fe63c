// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#include "shim_kdf.h"
#include <openssl/pem.h>

static void add_iterations(shim_kdf_cost *cost, const ASN1_INTEGER *count, int where) {
    uint64_t value = 0;
    if (count == NULL || ASN1_INTEGER_get_uint64(&value, count) != 1) return;
    if (value > cost->iterations) {
        cost->iterations = value;
        cost->iterations_where = where;
    }
}

/* N*r*p, saturating. */
static uint64_t scrypt_work(uint64_t n, uint64_t r, uint64_t p) {
    if (r != 0 && n > UINT64_MAX / r) return UINT64_MAX;
    uint64_t nr = n * r;
    if (p != 0 && nr > UINT64_MAX / p) return UINT64_MAX;
    return nr * p;
}

static void add_scrypt(shim_kdf_cost *cost, const SCRYPT_PARAMS *params, int where) {
    uint64_t n = 0, r = 0, p = 0;
    if (ASN1_INTEGER_get_uint64(&n, params->costParameter) != 1
        || ASN1_INTEGER_get_uint64(&r, params->blockSize) != 1
        || ASN1_INTEGER_get_uint64(&p, params->parallelizationParameter) != 1) return;
    if (scrypt_work(n, r, p) > scrypt_work(cost->scrypt_n, cost->scrypt_r, cost->scrypt_p)) {
        cost->scrypt_n = n;
        cost->scrypt_r = r;
        cost->scrypt_p = p;
        cost->scrypt_where = where;
    }
}

void shim_kdf_cost_add_algorithm(const X509_ALGOR *alg, int where, shim_kdf_cost *cost) {
    if (alg == NULL || alg->parameter == NULL) return;
    if (OBJ_obj2nid(alg->algorithm) == NID_pbes2) {
        PBE2PARAM *pbe2 = ASN1_TYPE_unpack_sequence(ASN1_ITEM_rptr(PBE2PARAM), alg->parameter);
        if (pbe2 == NULL) return;
        const X509_ALGOR *kdf = pbe2->keyfunc;
        int nid = kdf != NULL ? OBJ_obj2nid(kdf->algorithm) : NID_undef;
        if (nid == NID_id_pbkdf2 && kdf->parameter != NULL) {
            PBKDF2PARAM *params = ASN1_TYPE_unpack_sequence(ASN1_ITEM_rptr(PBKDF2PARAM), kdf->parameter);
            if (params != NULL) add_iterations(cost, params->iter, where);
            PBKDF2PARAM_free(params);
        } else if (nid == NID_id_scrypt && kdf->parameter != NULL) {
            SCRYPT_PARAMS *params = ASN1_TYPE_unpack_sequence(ASN1_ITEM_rptr(SCRYPT_PARAMS), kdf->parameter);
            if (params != NULL) add_scrypt(cost, params, where);
            SCRYPT_PARAMS_free(params);
        }
        PBE2PARAM_free(pbe2);
        return;
    }
    /* PKCS#5 v1 and PKCS#12 PBE (pbeWithSHA1And3-KeyTripleDES-CBC, ...): salt and count. */
    PBEPARAM *pbe = ASN1_TYPE_unpack_sequence(ASN1_ITEM_rptr(PBEPARAM), alg->parameter);
    if (pbe != NULL) add_iterations(cost, pbe->iter, where);
    PBEPARAM_free(pbe);
}

static void add_sig(const X509_SIG *sig, int where, shim_kdf_cost *cost) {
    const X509_ALGOR *alg = NULL;
    X509_SIG_get0(sig, &alg, NULL);
    shim_kdf_cost_add_algorithm(alg, where, cost);
}

/* The EncryptedPrivateKeyInfo in DER or PEM ("ENCRYPTED PRIVATE KEY"), or NULL. */
static X509_SIG *read_pkcs8(const unsigned char *bytes, long length, int pem) {
    if (!pem) {
        const unsigned char *cursor = bytes;
        return d2i_X509_SIG(NULL, &cursor, length);
    }
    BIO *bio = BIO_new_mem_buf(bytes, (int)length);
    if (bio == NULL) return NULL;
    X509_SIG *sig = PEM_read_bio_PKCS8(bio, NULL, NULL, NULL);
    BIO_free(bio);
    return sig;
}

int shim_kdf_cost_add_pkcs8(const unsigned char *bytes, long length, int pem, shim_kdf_cost *cost) {
    X509_SIG *sig = read_pkcs8(bytes, length, pem);
    if (sig == NULL) return 0;
    add_sig(sig, SHIM_KDF_KEY, cost);
    X509_SIG_free(sig);
    return 1;
}

/* Key bags, also inside nested SafeContents bags (depth-limited: a file can nest them). */
static void add_bags(const STACK_OF(PKCS12_SAFEBAG) *bags, int depth, shim_kdf_cost *cost) {
    if (bags == NULL || depth > 8) return;
    for (int i = 0; i < sk_PKCS12_SAFEBAG_num(bags); i++) {
        const PKCS12_SAFEBAG *bag = sk_PKCS12_SAFEBAG_value(bags, i);
        switch (PKCS12_SAFEBAG_get_nid(bag)) {
        case NID_pkcs8ShroudedKeyBag: {
            const X509_SIG *sig = PKCS12_SAFEBAG_get0_pkcs8(bag);
            if (sig != NULL) add_sig(sig, SHIM_KDF_KEY, cost);
            break;
        }
        case NID_safeContentsBag:
            add_bags(PKCS12_SAFEBAG_get0_safes(bag), depth + 1, cost);
            break;
        default:
            break;
        }
    }
}

int shim_kdf_cost_add_pkcs12(const PKCS12 *p12, int decrypt, const char *pass, int passlen, shim_kdf_cost *cost) {
    const ASN1_INTEGER *mac_iterations = NULL;
    PKCS12_get0_mac(NULL, NULL, NULL, &mac_iterations, p12);
    add_iterations(cost, mac_iterations, SHIM_KDF_MAC);
    STACK_OF(PKCS7) *safes = PKCS12_unpack_authsafes(p12);
    if (safes == NULL) return 0;
    for (int i = 0; i < sk_PKCS7_num(safes); i++) {
        PKCS7 *safe = sk_PKCS7_value(safes, i);
        STACK_OF(PKCS12_SAFEBAG) *bags = NULL;
        switch (OBJ_obj2nid(safe->type)) {
        case NID_pkcs7_data:
            bags = PKCS12_unpack_p7data(safe);
            break;
        case NID_pkcs7_encrypted:
            if (safe->d.encrypted != NULL && safe->d.encrypted->enc_data != NULL)
                shim_kdf_cost_add_algorithm(safe->d.encrypted->enc_data->algorithm, SHIM_KDF_CONTENTS, cost);
            if (decrypt) {
                bags = PKCS12_unpack_p7encdata(safe, pass, passlen);
                /* The empty password has two encodings; PKCS12_parse tries both too. */
                if (bags == NULL && (pass == NULL || passlen == 0))
                    bags = PKCS12_unpack_p7encdata(safe, pass == NULL ? "" : NULL, 0);
            }
            break;
        default:
            break;
        }
        add_bags(bags, 0, cost);
        sk_PKCS12_SAFEBAG_pop_free(bags, PKCS12_SAFEBAG_free);
    }
    sk_PKCS7_pop_free(safes, PKCS7_free);
    return 1;
}

int shim_pkcs8_encryption_name(const unsigned char *bytes, long length, int pem, char *name, int capacity) {
    X509_SIG *sig = read_pkcs8(bytes, length, pem);
    if (sig == NULL) return 0;
    const X509_ALGOR *alg = NULL;
    X509_SIG_get0(sig, &alg, NULL);
    const ASN1_OBJECT *object = alg->algorithm;
    PBE2PARAM *pbe2 = NULL;
    if (OBJ_obj2nid(alg->algorithm) == NID_pbes2 && alg->parameter != NULL) {
        /* PBES2 names its cipher inside; that is the part that can be missing. */
        pbe2 = ASN1_TYPE_unpack_sequence(ASN1_ITEM_rptr(PBE2PARAM), alg->parameter);
        if (pbe2 != NULL && pbe2->encryption != NULL) object = pbe2->encryption->algorithm;
    }
    int written = OBJ_obj2txt(name, capacity, object, 0);
    PBE2PARAM_free(pbe2);
    X509_SIG_free(sig);
    return written > 0 && written < capacity;
}
