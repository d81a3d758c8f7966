/// The panes of the full layout, in Tab order.
public enum Pane: String, CaseIterable, Sendable {
    case tree, timeline, detail, events

    public var next: Pane { Pane.allCases[(Pane.allCases.firstIndex(of: self)! + 1) % Pane.allCases.count] }
    public var previous: Pane {
        Pane.allCases[(Pane.allCases.firstIndex(of: self)! + Pane.allCases.count - 1) % Pane.allCases.count]
    }
}
