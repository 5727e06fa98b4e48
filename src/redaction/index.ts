export { createRedactor, type Redactor } from './redactor';
export { redactFailure } from './redact-failure';
export { redactingLogger } from './redacting-logger';
export { maskUrlCredentials, urlCredentials, urlCredentialsProblem } from './url-credentials';
