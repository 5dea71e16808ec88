/// The SRTP protection profiles Switchyard negotiates (RFC 5764 and RFC 7714 names).
public enum SRTPProfile: String, CaseIterable, Sendable {
    case aeadAES128GCM = "AEAD_AES_128_GCM"
    case aeadAES256GCM = "AEAD_AES_256_GCM"
    case aesCM128HMACSHA1_80 = "AES_CM_128_HMAC_SHA1_80"
    case aesCM128HMACSHA1_32 = "AES_CM_128_HMAC_SHA1_32"
}
