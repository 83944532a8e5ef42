import canonicalize from 'canonicalize';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import type { AuthorisationRecord, FlightRequestRecord } from '@dfc/contracts';
import type { Api } from '../api';
import { ErrorBanner, Loading, when } from '../ui/components';
import { useLoad } from '../ui/use-load';

/** What the constants of @dfc/contracts say the token carries (the console imports only its types). */
const ISSUER = 'dfc-flight-request-service';
const TOKEN_TYPE = 'dfc-authorisation+jwt';

interface Verified {
  authorisation: AuthorisationRecord;
  signature: 'valid';
  areaMatches: boolean;
}

/**
 * The signed authorisation of an Approved request, verified in the page as
 * anyone would offline: the signature against `/.well-known/jwks.json`
 * (EdDSA, WebCrypto), the issuer, type and subject, and the flight area's
 * RFC 8785 SHA-256 against the area the API holds.
 */
export function Authorisation({ api, record }: { api: Api; record: FlightRequestRecord }) {
  const result = useLoad(() => verify(api, record), [record.uuid, record.updated_at]);
  return (
    <section aria-labelledby="authorisation-title">
      <h2 id="authorisation-title">Signed authorisation</h2>
      <ErrorBanner error={result.error} />
      {result.data === null ? (
        result.error ? null : (
          <Loading />
        )
      ) : (
        <dl class="facts" data-testid="authorisation">
          <dt>Signature</dt>
          <dd>Verified against the published keys (kid {result.data.authorisation.kid})</dd>
          <dt>Flight area</dt>
          <dd>{result.data.areaMatches ? 'Matches the signed hash' : 'Does NOT match the signed hash'}</dd>
          <dt>Token id</dt>
          <dd>{result.data.authorisation.jti}</dd>
          <dt>Expires</dt>
          <dd>{when(result.data.authorisation.expires_at)}</dd>
        </dl>
      )}
    </section>
  );
}

async function verify(api: Api, record: FlightRequestRecord): Promise<Verified> {
  const { data: authorisation } = await api.get<{ data: AuthorisationRecord }>(`/api/flight-requests/${record.uuid}/authorisation`);
  const jwks = (await (await fetch('/.well-known/jwks.json', { credentials: 'omit' })).json()) as JSONWebKeySet;
  const { payload } = await jwtVerify(authorisation.token, createLocalJWKSet(jwks), { issuer: ISSUER, typ: TOKEN_TYPE, subject: record.uuid });
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(canonicalize(record.flight_area) ?? ''));
  const hex = Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
  return { authorisation, signature: 'valid', areaMatches: hex === payload['flight_area_sha256'] };
}
