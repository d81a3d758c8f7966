// A test imports PipescopeTesting alone: `Pipescope.findings` extends the library's
// namespace, and its findings are the model's values (Finding, LintKind).
@_exported import Pipescope
@_exported import PipescopeModel
