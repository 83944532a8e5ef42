import { schemaErrors } from '@dfc/kit/validation';
import { ValidationError, type FieldErrors } from '@dfc/kit/errors';
import { WebhookEndpointCreate, WebhookEndpointUpdate } from '@dfc/contracts';
import { checkEndpointUrl, type UrlPolicy } from './endpoint-url.js';

/**
 * The schema's checks and the URL rules together, so a 422 names every
 * failing field at once.
 */
export function checkEndpointCreate(input: unknown, policy: UrlPolicy): WebhookEndpointCreate {
  return check(WebhookEndpointCreate, input, policy) as WebhookEndpointCreate;
}

export function checkEndpointUpdate(input: unknown, policy: UrlPolicy): WebhookEndpointUpdate {
  return check(WebhookEndpointUpdate, input, policy) as WebhookEndpointUpdate;
}

function check(schema: typeof WebhookEndpointCreate | typeof WebhookEndpointUpdate, input: unknown, policy: UrlPolicy): unknown {
  const errors: FieldErrors = schemaErrors(schema, input);
  const url = (input as { url?: unknown } | null)?.url;
  if (typeof url === 'string' && !errors['url']) {
    const urlErrors = checkEndpointUrl(url, policy);
    if (urlErrors.length > 0) errors['url'] = urlErrors;
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return input;
}
