extension SwitchyardConfiguration {
    public static let developmentAPIKey = "switchyard-development"
    public static let developmentAPISecret = "switchyard-development-secret-do-not-use-in-production"

    /// The built-in configuration, identical to `Config/switchyard.json` (a test holds them equal).
    public static let defaultJSON = """
        {
          "$schema": "./switchyard.schema.json",
          "server": {
            "host": "127.0.0.1",
            "port": 7880,
            "tls": null,
            "http": {
              "maxConnections": 10000,
              "maxConnectionsPerAddress": 2000,
              "headerTimeoutSeconds": 10,
              "idleTimeoutSeconds": 60,
              "maxHeaderBytes": 16384,
              "maxHeaderFields": 100
            }
          },
          "credentials": {
            "apiKey": "switchyard-development",
            "apiSecret": "switchyard-development-secret-do-not-use-in-production",
            "restTokenMaxLifetimeSeconds": 300
          },
          "signaling": {
            "maxMessageBytes": 65536,
            "messagesPerSecond": 50,
            "messageBurst": 100,
            "rateViolationsBeforeDisconnect": 50,
            "connectTimeoutSeconds": 10,
            "pingIntervalSeconds": 15,
            "maxBacklogMessages": 4096,
            "maxBacklogBytes": 4194304,
            "reconnectGraceSeconds": 20,
            "maxReplayMessages": 1024,
            "maxReplayBytes": 1048576,
            "rememberedSignalIds": 1024,
            "maxSessions": 10000,
            "maxConnectionsPerSession": 1000,
            "maxStreamsPerConnection": 4,
            "maxSubscribersPerConnection": 256
          },
          "media": {
            "workers": 0,
            "listenAddress": "127.0.0.1",
            "announcedAddress": null,
            "portRange": { "first": 40000, "last": 40999 },
            "replayWindowPackets": 1024,
            "retransmissionBufferPackets": 1024,
            "keyFrameRequestIntervalMs": 1000,
            "reportIntervalMs": 1000,
            "producerIdleTimeoutMs": 5000,
            "webrtc": {
              "sharedPort": null,
              "tcpPort": 0,
              "connectTimeoutSeconds": 30,
              "consentTimeoutSeconds": 30
            },
            "udpSegmentation": true,
            "workerLoop": "dispatch-wait",
            "spreadThreshold": 64,
            "relayRingPackets": 1024,
            "redundantAudio": {
              "addedFrames": 1,
              "addAboveLoss": 0.03
            },
            "overload": {
              "enabled": true,
              "videoQueueLimitMs": 150,
              "audioQueueLimitMs": 200,
              "shedAboveMs": 20,
              "stepShare": 0.1,
              "restoreAfterMs": 2000,
              "restoreBelowBusyShare": 0.85,
              "forwardingBudget": 120000
            },
            "faultInjection": false,
            "audioFallback": {
              "warningScore": 70,
              "disableScore": 45,
              "recoveryScore": 80,
              "warnAfterMs": 500,
              "disableAfterMs": 1500,
              "liftAfterMs": 2000,
              "recoverAfterMs": 2000,
              "backoffWindowMs": 60000,
              "backoffFactor": 4,
              "maxRecoverAfterMs": 64000,
              "probeBitrate": 150000,
              "probeDeliveredShare": 0.85,
              "smoothing": 0.5,
              "publisherSampleIntervalMs": 500
            }
          },
          "logging": {
            "level": "info"
          },
          "shutdown": {
            "drainSeconds": 10
          },
          "archives": {
            "enabled": true,
            "directory": "archives",
            "maximumBytesPerArchive": 2147483648,
            "minimumFreeBytes": 1073741824,
            "maximumConcurrent": 64,
            "ringPackets": 4096
          },
          "cluster": null
        }

        """
}
