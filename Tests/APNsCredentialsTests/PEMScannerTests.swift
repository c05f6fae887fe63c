// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import Testing

@Suite("PEM scanning")
struct PEMScannerTests {
    let certificateBlock = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

    @Test("Finds blocks in order, skipping text around them (bag attributes, notes)")
    func findsBlocks() async throws {
        let text = "Bag Attributes\n    friendlyName: x\n" + certificateBlock + "note\n" +
            "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: DES-EDE3-CBC,00\n\nAAAA\n-----END RSA PRIVATE KEY-----\n"
        let blocks = try PEMScanner.blocks(in: Array(text.utf8), label: "t")
        #expect(blocks.map(\.label) == ["CERTIFICATE", "RSA PRIVATE KEY"])
        #expect(blocks.map(\.kind) == [.certificate, .privateKey])
        #expect(blocks[1].isEncrypted)
        #expect(blocks[0].line == 3)
    }

    @Test("A block cut off before its END line is reported as truncated, with its line")
    func truncated() {
        let text = certificateBlock + "-----BEGIN PRIVATE KEY-----\nMIIE\n"
        let error = #expect(throws: APNsCredentialError.self) { try PEMScanner.blocks(in: Array(text.utf8), label: "apns.pem") }
        #expect(error?.kind == .unreadable)
        #expect(error?.message == "apns.pem is truncated: the PEM block 'PRIVATE KEY' that starts at line 4 has no END line; download or export the file again.")
    }

    @Test("Mismatched END label and empty body are damage")
    func damaged() {
        let mismatched = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END PRIVATE KEY-----\n"
        #expect(throws: APNsCredentialError.self) { try PEMScanner.blocks(in: Array(mismatched.utf8), label: "x") }
        let empty = "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n"
        #expect(throws: APNsCredentialError.self) { try PEMScanner.blocks(in: Array(empty.utf8), label: "x") }
    }

    @Test("CRLF line endings are accepted")
    func crlf() async throws {
        let text = certificateBlock.replacingOccurrences(of: "\n", with: "\r\n")
        #expect(try PEMScanner.blocks(in: Array(text.utf8), label: "t").count == 1)
    }

    @Test("A byte order mark, at the start or after a cat, hides no block; blocks come out clean")
    func byteOrderMark() async throws {
        let bom = "\u{FEFF}"
        let text = bom + certificateBlock.replacingOccurrences(of: "\n", with: "  \r\n") + bom + certificateBlock.dropLast()
        let blocks = try PEMScanner.blocks(in: Array(text.utf8), label: "t")
        #expect(blocks.count == 2)
        for block in blocks {
            #expect(!block.text.contains(0x0D) && !block.text.contains(0xEF) && block.text.last == 0x0A)
            #expect(!String(decoding: block.text, as: UTF8.self).contains(" \n"))
        }
    }

    @Test("Bag Attributes above a block give its friendlyName and localKeyID")
    func bagAttributes() async throws {
        let text = "Bag Attributes\n    localKeyID: 0A FF 01 \n    friendlyName: Push A\nsubject=CN=x\n" + certificateBlock + certificateBlock
        let blocks = try PEMScanner.blocks(in: Array(text.utf8), label: "t")
        #expect(blocks[0].attributes == BagAttributes(friendlyName: "Push A", localKeyID: [0x0A, 0xFF, 0x01]))
        #expect(blocks[1].attributes == BagAttributes())
    }
}
