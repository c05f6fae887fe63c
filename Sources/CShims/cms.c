// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#include "shim_cms.h"

int shim_cms_signer_count(CMS_ContentInfo *cms) {
    STACK_OF(CMS_SignerInfo) *infos = CMS_get0_SignerInfos(cms);
    return infos == NULL ? 0 : sk_CMS_SignerInfo_num(infos);
}

X509 *shim_cms_signer_certificate(CMS_ContentInfo *cms) {
    STACK_OF(CMS_SignerInfo) *infos = CMS_get0_SignerInfos(cms);
    if (infos == NULL || sk_CMS_SignerInfo_num(infos) < 1) return NULL;
    CMS_SignerInfo *info = sk_CMS_SignerInfo_value(infos, 0);
    STACK_OF(X509) *certs = CMS_get1_certs(cms);
    if (certs == NULL) return NULL;
    X509 *found = NULL;
    for (int i = 0; i < sk_X509_num(certs); i++) {
        X509 *cert = sk_X509_value(certs, i);
        if (CMS_SignerInfo_cert_cmp(info, cert) == 0) {
            if (X509_up_ref(cert) == 1) found = cert;
            break;
        }
    }
    sk_X509_pop_free(certs, X509_free);
    return found;
}

long shim_cms_content(CMS_ContentInfo *cms, const unsigned char **data) {
    ASN1_OCTET_STRING **content = CMS_get0_content(cms);
    if (content == NULL || *content == NULL) return -1;
    *data = ASN1_STRING_get0_data(*content);
    return ASN1_STRING_length(*content);
}
