// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport

/// The full path of a tool (nghttpd and nghttpx live in /usr/sbin).
package func tool(_ name: String) -> String { Binaries.tool(name) }

package struct ChildError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
