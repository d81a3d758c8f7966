/// The release this build is: the same number for the library a program links and the
/// `pipescope` it is inspected with (`pipescope --version`, ``Pipescope/version``).
///
/// Semantic versioning: 0.x while the wire protocol and the API may still change between
/// minor releases. It goes up with each release; the wire protocol's own number
/// (``ProtocolVersion``) goes up only when the messages change.
///
/// ```swift
/// print(ReleaseVersion.current)   // "0.1.0"
/// ```
public enum ReleaseVersion {
    public static let current = "0.1.0"
}
