import PipelineHost
import Testing

/// The host finds the S3 loader's credentials, region and endpoint as AWS's tools do, and hands them over as
/// configuration lines (the plugin never reads the environment or a file).
@Suite("S3 loader environment: the AWS lookup order")
struct S3LoaderEnvironmentTests {
    static let credentials = """
        [default]
        aws_access_key_id = DEFAULTKEY
        aws_secret_access_key = default-secret

        [ci]
        aws_access_key_id=CIKEY
        aws_secret_access_key=ci-secret
        aws_session_token = ci-token
        """
    static let config = """
        [default]
        region = eu-west-3

        # a comment
        [profile ci]
        region = ap-south-1
        s3 =
          endpoint_url = http://minio.internal:9000
          addressing_style = path
        [profile keys-here]
        aws_access_key_id = CONFIGKEY
        aws_secret_access_key = config-secret
        """

    static func lines(_ environment: [String: String], explicit: [String] = []) throws -> [String] {
        let files = ["/home/u/.aws/credentials": credentials, "/home/u/.aws/config": config]
        return try S3LoaderEnvironment.configurationLines(environment: ["HOME": "/home/u"].merging(environment) { $1 }, explicit: explicit,
                                                          readFile: { files[$0] })
    }

    @Test("environment variables come before the shared files")
    func environmentFirst() throws {
        let found = try Self.lines(["AWS_ACCESS_KEY_ID": "ENVKEY", "AWS_SECRET_ACCESS_KEY": "env-secret", "AWS_SESSION_TOKEN": "env-token",
                                    "AWS_REGION": "us-west-2", "AWS_ENDPOINT_URL": "http://127.0.0.1:9000"])
        #expect(found == ["access-key-id=ENVKEY", "secret-access-key=env-secret", "session-token=env-token",
                          "credentials-source=the environment (AWS_ACCESS_KEY_ID)", "region=us-west-2", "endpoint=http://127.0.0.1:9000"])
        // AWS_ENDPOINT_URL_S3 is the service-specific one, and wins.
        #expect(try Self.lines(["AWS_ENDPOINT_URL": "http://a", "AWS_ENDPOINT_URL_S3": "http://b"]).contains("endpoint=http://b"))
    }

    @Test("the default profile, or AWS_PROFILE's, from ~/.aws/credentials and ~/.aws/config (its s3 block too)")
    func profiles() throws {
        #expect(try Self.lines([:]) == ["access-key-id=DEFAULTKEY", "secret-access-key=default-secret",
                                        "credentials-source=profile 'default' in /home/u/.aws/credentials", "region=eu-west-3"])
        #expect(try Self.lines(["AWS_PROFILE": "ci"]) == [
            "access-key-id=CIKEY", "secret-access-key=ci-secret", "session-token=ci-token",
            "credentials-source=profile 'ci' in /home/u/.aws/credentials", "region=ap-south-1",
            "endpoint=http://minio.internal:9000", "addressing=path"])
        // Keys may sit in the config file too.
        #expect(try Self.lines(["AWS_PROFILE": "keys-here"]).contains("credentials-source=profile 'keys-here' in /home/u/.aws/config"))
        #expect(throws: S3LoaderEnvironment.Failure.self) { try Self.lines(["AWS_PROFILE": "nope"]) }
    }

    @Test("explicit configuration wins: given keys are not looked up, and a given key skips every found credential")
    func explicitWins() throws {
        let found = try Self.lines(["AWS_ACCESS_KEY_ID": "ENVKEY", "AWS_SECRET_ACCESS_KEY": "env-secret", "AWS_REGION": "us-west-2"],
                                   explicit: ["access-key-id=GIVEN", "secret-access-key=given-secret", "region=eu-north-1"])
        #expect(!found.contains { $0.hasPrefix("access-key-id=") || $0.hasPrefix("secret-access-key=") || $0.hasPrefix("region=") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("credentials-source=the loader configuration") })
    }

    @Test("nothing found, nothing added: an unsigned loader (a public bucket)")
    func nothing() throws {
        let found = try S3LoaderEnvironment.configurationLines(environment: ["HOME": "/nowhere"], explicit: [], readFile: { _ in nil })
        #expect(found.isEmpty)
    }
}
