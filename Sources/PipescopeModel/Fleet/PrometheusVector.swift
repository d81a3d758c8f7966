import Foundation

/// One answer of Prometheus' instant-query API (`GET /api/v1/query`), read as
/// `pipescope top --prometheus` needs it: a vector of samples, or why there is none.
///
/// Prometheus answers `{"status":"success","data":{"resultType":"vector","result":[…]}}`,
/// each sample `{"metric":{labels},"value":[time,"text"]}`, the number as text because
/// it may be `NaN`, `+Inf` or `-Inf`; or `{"status":"error","errorType":…,"error":…}`.
///
/// ```swift
/// let vector = try PrometheusVector.parse(data)
/// vector.samples[0].labels["instance"]   // "10.0.0.7:9464"
/// vector.samples[0].value                // 3.0 (or .nan, .infinity)
/// ```
public struct PrometheusVector: Equatable, Sendable {
    /// One series' value at the query's time.
    public struct Sample: Equatable, Sendable {
        public var labels: [String: String]
        public var value: Double

        public init(labels: [String: String], value: Double) {
            self.labels = labels
            self.value = value
        }

        /// Equal labels and equal values, NaN equal to NaN (a test compares parsed answers).
        public static func == (a: Sample, b: Sample) -> Bool {
            a.labels == b.labels && (a.value == b.value || (a.value.isNaN && b.value.isNaN))
        }
    }

    public var samples: [Sample]

    public init(samples: [Sample]) { self.samples = samples }

    /// Why an answer gave no vector, in words a person acts on.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        /// Prometheus said `"status":"error"` (a bad query, a timeout on its side).
        case prometheusError(type: String, message: String)
        /// Not Prometheus' JSON at all (another server on that port, a proxy's page).
        case notPrometheus(String)
        /// A result that is not an instant vector (a scalar or a string query).
        case notAVector(String)

        public var description: String {
            switch self {
            case .prometheusError(let type, let message):
                return "Prometheus refused the query (\(type)): \(message)"
            case .notPrometheus(let start):
                return "the answer is not Prometheus' API JSON (it starts \"\(start)\"); is the URL Prometheus' own, "
                    + "as http://HOST:9090?"
            case .notAVector(let type):
                return "Prometheus answered a \(type), not a vector"
            }
        }
    }

    /// Reads one answer's body.
    public static func parse(_ data: Data) throws(Problem) -> PrometheusVector {
        let answer: Answer
        do {
            answer = try JSONDecoder().decode(Answer.self, from: data)
        } catch {
            let start = String(decoding: data.prefix(40), as: UTF8.self)
                .replacingOccurrences(of: "\n", with: " ").trimmingCharacters(in: .whitespaces)
            throw .notPrometheus(start)
        }
        guard answer.status == "success" else {
            throw .prometheusError(type: answer.errorType ?? "error", message: answer.error ?? "no reason given")
        }
        guard let data = answer.data else { throw .notPrometheus("{\"status\":\"success\"} with no data") }
        guard data.resultType == "vector" else { throw .notAVector(data.resultType) }
        var samples: [Sample] = []
        for item in data.result ?? [] {
            // ["1700000000.123", "NaN"]: Double("NaN"), Double("+Inf") read Prometheus' spellings.
            guard item.value.count == 2, case .text(let text) = item.value[1], let value = Double(text) else {
                throw .notPrometheus("a sample whose value is not [time, \"number\"]")
            }
            samples.append(Sample(labels: item.metric, value: value))
        }
        return PrometheusVector(samples: samples)
    }

    // MARK: - The JSON's shape

    private struct Answer: Decodable {
        var status: String
        var data: Body?
        var errorType: String?
        var error: String?
    }

    private struct Body: Decodable {
        var resultType: String
        /// Read for a vector only: a scalar's or a string's result is one `[time, "text"]` pair.
        var result: [Item]?

        enum CodingKeys: String, CodingKey { case resultType, result }

        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            resultType = try c.decode(String.self, forKey: .resultType)
            result = resultType == "vector" ? try c.decodeIfPresent([Item].self, forKey: .result) : nil
        }
    }

    private struct Item: Decodable {
        var metric: [String: String]
        var value: [Scalar]
    }

    /// A `value` pair's element: the time is a JSON number, the value a string.
    private enum Scalar: Decodable {
        case number(Double)
        case text(String)

        init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let text = try? c.decode(String.self) { self = .text(text) } else { self = .number(try c.decode(Double.self)) }
        }
    }
}
