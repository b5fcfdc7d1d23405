public enum PipelineHostVersion { public static let string = "0.1.0" }
