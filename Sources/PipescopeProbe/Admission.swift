import NIOCore
import PipescopeWire

/// Which connections the probe keeps, under its ``ServerLimits``.
///
/// Every connection is counted from the moment it is accepted until it is closed, in one
/// of three states: waiting for its Hello, greeted (an inspector), or being closed. So
/// the probe never holds more than `limits.connections` of them, whatever the peers do.
/// Shared by the Unix and TCP listeners, and confined to the server's one event loop:
/// no lock.
///
/// ```swift
/// // channelActive:          admission.connected(channel)        (may close the oldest silent one)
/// // Hello, version and token checked:
/// if admission.greet(channel) { hub.attach(channel) }            (else it was told why, and closed)
/// // channelInactive:        admission.closed(channel)
/// ```
final class Admission: @unchecked Sendable {
    let limits: ServerLimits

    private enum State {
        /// Accepted, no Hello yet; `order` says which arrived first.
        case handshaking(order: UInt64)
        case greeted
        /// Told why, and closing; counted until it is closed.
        case closing
    }

    private var connections: [ObjectIdentifier: (channel: Channel, state: State)] = [:]
    private var arrivals: UInt64 = 0

    init(limits: ServerLimits) {
        self.limits = limits
    }

    /// Connections held now, in each state (for tests and diagnostics).
    var counts: (handshaking: Int, greeted: Int, closing: Int) {
        var counts = (handshaking: 0, greeted: 0, closing: 0)
        for (_, state) in connections.values {
            switch state {
            case .handshaking: counts.handshaking += 1
            case .greeted: counts.greeted += 1
            case .closing: counts.closing += 1
            }
        }
        return counts
    }

    /// A connection was accepted. It is kept to wait for its Hello (closing the oldest
    /// silent one if too many wait), or refused at once if the probe is full.
    /// Returns whether it was kept.
    @discardableResult
    func connected(_ channel: Channel) -> Bool {
        if counts.handshaking >= limits.handshakes, let oldest = oldestHandshaking() {
            refuse(oldest, "closed to make room: more than \(limits.handshakes) connections were waiting to say Hello "
                + "to this program at once, and this one waited longest. If this was `pipescope`, attach again; "
                + "if not, something keeps connecting to the program's socket without speaking the Pipescope protocol")
        }
        guard connections.count < limits.connections else {
            connections[ObjectIdentifier(channel)] = (channel, .closing)
            channel.sendErrorAndClose("this program already holds \(limits.connections) Pipescope connections, the most it "
                + "serves at once; close an inspector (q in its window) or wait a few seconds, then attach again")
            return false
        }
        arrivals += 1
        connections[ObjectIdentifier(channel)] = (channel, .handshaking(order: arrivals))
        return true
    }

    /// The connection said a valid Hello. Returns whether it may attach as an inspector;
    /// if not, it has been told why and is closing.
    func greet(_ channel: Channel) -> Bool {
        guard case .handshaking? = connections[ObjectIdentifier(channel)]?.state else { return false }
        guard counts.greeted < limits.inspectors else {
            refuse(channel, "\(limits.inspectors) inspectors are already attached to this program, the most it serves "
                + "at once; close one of them (q in its window), then attach again")
            return false
        }
        connections[ObjectIdentifier(channel)] = (channel, .greeted)
        return true
    }

    /// Sends the peer an Error it can show, then closes the connection (it stays counted
    /// until it is closed).
    func refuse(_ channel: Channel, _ text: String) {
        if connections[ObjectIdentifier(channel)] != nil {
            connections[ObjectIdentifier(channel)] = (channel, .closing)
        }
        channel.sendErrorAndClose(text)
    }

    /// The connection is closed: it no longer counts.
    func closed(_ channel: Channel) {
        connections[ObjectIdentifier(channel)] = nil
    }

    private func oldestHandshaking() -> Channel? {
        var oldest: (order: UInt64, channel: Channel)?
        for (channel, state) in connections.values {
            if case .handshaking(let order) = state, order < oldest?.order ?? .max { oldest = (order, channel) }
        }
        return oldest?.channel
    }
}

extension Channel {
    /// Sends an Error frame the peer can show, then closes. A peer that reads nothing
    /// may never take the frame, so the connection is closed within a second regardless.
    func sendErrorAndClose(_ text: String) {
        let channel: Channel = self
        let fallback = eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
        writeAndFlush(allocator.buffer(bytes: ServerMessage.error(text).framed())).whenComplete { _ in
            fallback.cancel()
            channel.close(promise: nil)
        }
    }
}
