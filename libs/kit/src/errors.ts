/**
 * The one error hierarchy of the system. Domain and HTTP code throw these;
 * `errorMiddleware` is the only place that turns them into responses.
 */
export type FieldErrors = Record<string, string[]>;

/** Joins several sources of field errors (schema, domain rules, uniqueness) into one 422 body, each message once per field. */
export function mergeFieldErrors(...sources: FieldErrors[]): FieldErrors {
  const merged: FieldErrors = {};
  for (const source of sources) {
    for (const [field, messages] of Object.entries(source)) {
      const list = (merged[field] ??= []);
      for (const message of messages) if (!list.includes(message)) list.push(message);
    }
  }
  return merged;
}

export function hasErrors(errors: FieldErrors): boolean {
  return Object.keys(errors).length > 0;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }

  /** The JSON body sent to the client. */
  body(): Record<string, unknown> {
    return { message: this.message };
  }
}

export class BadRequestError extends AppError {
  constructor(message = 'Malformed JSON body.') {
    super(400, message);
  }
}

export class UnauthenticatedError extends AppError {
  constructor() {
    super(401, 'Unauthenticated.');
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'This action is unauthorized.') {
    super(403, message);
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'Not Found.') {
    super(404, message);
  }
}

export class MethodNotAllowedError extends AppError {
  constructor(message = 'Method Not Allowed.') {
    super(405, message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, message);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message = 'Request body is too large.') {
    super(413, message);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(message = 'Request body must be application/json.') {
    super(415, message);
  }
}

/** Laravel's validation failure: a summary message plus every failing field. */
export class ValidationError extends AppError {
  constructor(readonly errors: FieldErrors) {
    super(422, summarise(errors));
  }

  static of(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }

  override body(): Record<string, unknown> {
    return { message: this.message, errors: this.errors };
  }
}

export class TooManyRequestsError extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, 'Too Many Attempts.');
  }
}

/**
 * The client closed its connection before the answer was ready (nginx's 499): nothing can be
 * sent, and it is neither the client's mistake nor a failure of ours, so it is logged and
 * counted apart from both.
 */
export class ClientClosedRequestError extends AppError {
  constructor() {
    super(499, 'Client Closed Request.');
  }
}

export class ServiceUnavailableError extends AppError {
  /** With `retryAfterSeconds`, the answer carries Retry-After: the refusal is momentary (a process at its capacity). */
  constructor(
    message = 'Service Unavailable.',
    readonly retryAfterSeconds?: number,
  ) {
    super(503, message);
  }
}

/** "The email field is required. (and 2 more errors)", as Laravel words it. */
function summarise(errors: FieldErrors): string {
  const messages = Object.values(errors).flat();
  const first = messages[0] ?? 'The given data was invalid.';
  const more = messages.length - 1;
  if (more <= 0) return first;
  return `${first} (and ${more} more ${more === 1 ? 'error' : 'errors'})`;
}
