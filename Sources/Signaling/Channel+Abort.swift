import Glibc
import NIOCore

extension Channel {
    /// Closes the connection with a TCP reset: nothing still queued is sent, and the socket's memory
    /// and descriptor are freed at once. For a peer that stopped reading, whose queued data (a close
    /// frame included) would otherwise wait in the kernel until it read again.
    public func abort() {
        guard let socket = self as? any SocketOptionProvider else {
            close(promise: nil)
            return
        }
        socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in
            self.close(promise: nil)
        }
    }
}
