import PipescopeGraph

// A flatMap's ``InnerAnswers`` in a snapshot's stage (NodeState.inner_answers): what the
// out-of-order lint reads, carried so that an inspector attaching after a late answer,
// `pipescope snapshot` and a replay starting at a later snapshot judge as the probe did.

extension InnerAnswers {
    /// The record a snapshot's stage carries. Words travel as text: an ``EventValue`` is
    /// equal to its words (`.int(42) == .text("42")`), and "" is ``EventValue/none``.
    public init(wire a: WireInnerAnswers) {
        self.init(inputs: a.inputs.map(Input.init(wire:)), newest: a.hasNewest ? Input(wire: a.newest) : nil,
                  lateCount: Int(clamping: a.lateCount),
                  lastLate: a.hasLastLate ? Late(wire: a.lastLate) : nil, fromCollection: a.fromCollection)
    }

    public var wire: WireInnerAnswers {
        var a = WireInnerAnswers()
        a.inputs = inputs.map(\.wire)
        if let newest { a.newest = newest.wire }
        a.lateCount = UInt64(max(0, lateCount))
        if let lastLate { a.lastLate = lastLate.wire }
        a.fromCollection = fromCollection
        return a
    }
}

extension InnerAnswers.Input {
    init(wire i: Pipescope_V1_AnswerInput) {
        self.init(event: i.event, value: EventValue(text: i.value), causedBy: i.causedBy)
    }

    var wire: Pipescope_V1_AnswerInput {
        var i = Pipescope_V1_AnswerInput()
        i.event = event
        i.value = value.text
        i.causedBy = causedBy
        return i
    }
}

extension InnerAnswers.Late {
    init(wire l: Pipescope_V1_LateAnswer) {
        self.init(stale: InnerAnswers.Input(wire: l.stale), fresh: InnerAnswers.Input(wire: l.fresh),
                  stage: l.stage, time: l.timeNs)
    }

    var wire: Pipescope_V1_LateAnswer {
        var l = Pipescope_V1_LateAnswer()
        l.stale = stale.wire
        l.fresh = fresh.wire
        l.stage = stage
        l.timeNs = time
        return l
    }
}
