import Glibc

/// A value behind a pthread mutex, in one allocation with it: the tap's lock, so that the
/// code running on the program's threads needs no networking library for it.
///
/// A copy shares the value and the lock. Keep the closures short: nothing in them may run
/// user code, release a user object or block (see ``StageRegistry``).
///
/// ```swift
/// let count = LockedBox(0)
/// count.withLockedValue { $0 += 1 }
/// ```
package struct LockedBox<Value>: @unchecked Sendable {
    @usableFromInline let storage: Storage

    package init(_ value: Value) { storage = Storage.make(value) }

    /// Runs `body` with the value while holding the lock.
    @inlinable @inline(__always)
    package func withLockedValue<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withLockedValue(body)
    }

    @usableFromInline
    final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        static func make(_ value: Value) -> Storage {
            let buffer = Storage.create(minimumCapacity: 1) { _ in value }
            let storage = unsafeDowncast(buffer, to: Storage.self)
            storage.withUnsafeMutablePointerToElements { _ = pthread_mutex_init($0, nil) }
            return storage
        }

        deinit { _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) } }

        @inlinable @inline(__always)
        func withLockedValue<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
            try withUnsafeMutablePointers { value, mutex in
                pthread_mutex_lock(mutex)
                defer { pthread_mutex_unlock(mutex) }
                return try body(&value.pointee)
            }
        }
    }
}

/// A lock with no value of its own, for state kept in several stored properties.
package struct Lock: Sendable {
    /// A byte, not `()`: an empty value would share its address with the mutex, and the
    /// thread sanitizer then reports the `inout` access to it as a race with the lock.
    @usableFromInline let box = LockedBox<UInt8>(0)

    package init() {}

    /// Runs `body` while holding the lock.
    @inlinable @inline(__always)
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        try box.withLockedValue { _ in try body() }
    }
}
