/// Host-side image transformations, one file each (`ImageTransformers+Resize.swift`, `+Tint.swift`).
public enum ImageTransformers {}
