import Prometheus
import Synchronization
import Webhooks

extension SwitchyardMetrics {
    /// Webhook deliveries, failures by cause, retries, drops by reason, queue depth and the age of
    /// the oldest undelivered event, labelled by endpoint.
    func refreshWebhooks(_ status: WebhookStatus) {
        advance(webhookCounter("webhook_intake_dropped", "Webhook events dropped before any queue because the intake was full", []), key: "webhook.intake", to: status.droppedAtIntake)
        for endpoint in status.endpoints {
            let labels = [("endpoint", endpoint.name)]
            let key = "webhook.\(endpoint.name)."
            webhookGauge("webhook_queued_events", "Webhook events waiting for the endpoint, in flight and retrying included", labels).set(Double(endpoint.queued))
            webhookGauge("webhook_oldest_undelivered_seconds", "Age of the oldest webhook event waiting for the endpoint", labels)
                .set(endpoint.oldestUndeliveredSeconds)
            advance(webhookCounter("webhook_deliveries", "Webhook events the endpoint accepted", labels), key: key + "delivered", to: endpoint.delivered)
            advance(webhookCounter("webhook_retries", "Webhook attempts tried again", labels), key: key + "retries", to: endpoint.retries)
            for (cause, count) in endpoint.failures {
                advance(
                    webhookCounter("webhook_failures", "Failed webhook attempts by cause", labels + [("cause", cause)]), key: key + "failure." + cause, to: count)
            }
            for (reason, count) in endpoint.dropped {
                advance(
                    webhookCounter("webhook_dropped", "Webhook events given up on, by reason", labels + [("reason", reason)]), key: key + "dropped." + reason,
                    to: count)
            }
        }
    }

    private func webhookCounter(_ name: String, _ help: String, _ labels: [(String, String)]) -> Counter {
        cached(name, labels, in: webhookCounters) { Self.counter(registry, name, help, labels: labels) }
    }

    private func webhookGauge(_ name: String, _ help: String, _ labels: [(String, String)]) -> Gauge {
        cached(name, labels, in: webhookGauges) { Self.gauge(registry, name, help, labels: labels) }
    }

    /// The metric of that name and labels, made the first time it is asked for.
    private func cached<Metric>(
        _ name: String, _ labels: [(String, String)], in cache: borrowing Mutex<[String: Metric]>, make: () -> Metric
    ) -> Metric {
        let key = name + labels.map { "|\($0.0)=\($0.1)" }.joined()
        return cache.withLock { metrics in
            if let metric = metrics[key] { return metric }
            let metric = make()
            metrics[key] = metric
            return metric
        }
    }
}
