import PluginAPI

/// A loader inside a plugin (opened on first use).
public final class PluginLoader: Sendable {
    public let descriptor: LoaderDescriptor
    private let table: LazyTable<ip_loader>

    init(descriptor: LoaderDescriptor, table: LazyTable<ip_loader>) {
        self.descriptor = descriptor
        self.table = table
    }

    func vtable() throws -> ip_loader { try table.get() }
}
