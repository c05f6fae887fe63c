// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#include "shim_ca.h"
#include <openssl/asn1.h>
#include <openssl/bn.h>
#include <openssl/objects.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

int shim_x509_add_ext_conf(X509 *cert, X509 *issuer, int nid, const char *value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer ? issuer : cert, cert, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (ext == NULL) return 0;
    int ok = X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
    return ok == 1;
}

int shim_x509_add_ext_der(X509 *cert, const char *oid, int critical,
                          const unsigned char *der, int length) {
    int ok = 0;
    ASN1_OBJECT *object = OBJ_txt2obj(oid, 1);
    ASN1_OCTET_STRING *value = ASN1_OCTET_STRING_new();
    X509_EXTENSION *ext = NULL;
    if (object == NULL || value == NULL || length < 0) goto done;
    if (!ASN1_OCTET_STRING_set(value, der, length)) goto done;
    ext = X509_EXTENSION_create_by_OBJ(NULL, object, critical ? 1 : 0, value);
    if (ext == NULL) goto done;
    ok = X509_add_ext(cert, ext, -1) == 1;
done:
    X509_EXTENSION_free(ext);
    ASN1_OCTET_STRING_free(value);
    ASN1_OBJECT_free(object);
    return ok;
}

int shim_x509_set_validity(X509 *cert, int64_t not_before, int64_t not_after) {
    if (ASN1_TIME_set(X509_getm_notBefore(cert), (time_t)not_before) == NULL) return 0;
    if (ASN1_TIME_set(X509_getm_notAfter(cert), (time_t)not_after) == NULL) return 0;
    return 1;
}

int shim_x509_set_random_serial(X509 *cert) {
    unsigned char bytes[16];
    if (RAND_bytes(bytes, sizeof bytes) != 1) return 0;
    bytes[0] &= 0x7F;
    bytes[0] |= 0x01; /* never a leading zero byte: the encoding stays 16 bytes */
    BIGNUM *bn = BN_bin2bn(bytes, sizeof bytes, NULL);
    if (bn == NULL) return 0;
    int ok = BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert)) != NULL;
    BN_free(bn);
    return ok;
}
