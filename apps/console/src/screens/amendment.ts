import type { FlightRequestRecord } from '@dfc/contracts';
import { isSpecShaped, volumeDrafts, volumeInput, type VolumeDraft } from '../map/volumes';
import { inputValue, toUtc, when } from '../ui/format';

/** What the operator may do with the flight now: the API decides, these only offer what it would accept. */
export function flightActions(record: Pick<FlightRequestRecord, 'status' | 'start_time' | 'end_time'>, now: number) {
  const start = Date.parse(record.start_time);
  const end = Date.parse(record.end_time);
  return {
    amend: (record.status === 'Pending' || record.status === 'Approved') && now < start,
    activate: record.status === 'Approved' && start <= now && now < end,
    end: record.status === 'Activated',
  };
}

export type FlightAction = 'amend' | 'activate' | 'end';

/** What the API answered to an action, as the page says it once the forms have moved on. */
export function outcomeText(action: FlightAction, answer: Pick<FlightRequestRecord, 'status' | 'revision' | 'activation'>): string {
  if (action === 'activate')
    return `Activated at ${when(answer.activation?.activated_at ?? null)}: the airspace stays reserved until the flight is ended.`;
  if (action === 'end') return `Ended at ${when(answer.activation?.ended_at ?? null)}: the airspace is given back.`;
  return answer.status === 'Approved'
    ? `Amended (revision ${answer.revision}): Approved, with a new authorisation.`
    : `Amended (revision ${answer.revision}): ${answer.status}, under review.`;
}

export interface AmendDraft {
  start_time: string;
  end_time: string;
  max_altitude: string;
  purpose: string;
  /** A request of volumes is amended by its volumes (the spec's fields are their envelope); null: by the spec's fields. */
  volumes: VolumeDraft[] | null;
}

type AmendedRecord = Pick<FlightRequestRecord, 'start_time' | 'end_time' | 'max_altitude' | 'purpose' | 'volumes' | 'flight_area'>;

/** The amendable fields as the form shows them. */
export function draftOf(record: AmendedRecord): AmendDraft {
  return {
    start_time: inputValue(new Date(record.start_time)),
    end_time: inputValue(new Date(record.end_time)),
    max_altitude: String(record.max_altitude),
    purpose: record.purpose,
    volumes: isSpecShaped(record) ? null : volumeDrafts(record),
  };
}

/** The PATCH body: the fields the operator changed, each as submission sends it; null when nothing changed. */
export function amendment(record: AmendedRecord, draft: AmendDraft): Record<string, unknown> | null {
  const before = draftOf(record);
  const body: Record<string, unknown> = {};
  if (draft.volumes !== null && before.volumes !== null) {
    const volumes = draft.volumes.map(volumeInput);
    if (JSON.stringify(volumes) !== JSON.stringify(before.volumes.map(volumeInput))) body['volumes'] = volumes;
  } else {
    if (draft.start_time !== before.start_time) body['start_time'] = toUtc(draft.start_time);
    if (draft.end_time !== before.end_time) body['end_time'] = toUtc(draft.end_time);
    if (draft.max_altitude !== before.max_altitude) body['max_altitude'] = Number(draft.max_altitude);
    // A request sent as one volume shaped like the spec's fields keeps its volumes unless the amendment
    // sends its area: the area as it is makes the new window and ceiling the request's, not the volume's.
    if (Object.keys(body).length > 0 && record.flight_area !== undefined) body['flight_area'] = record.flight_area;
  }
  if (draft.purpose !== before.purpose) body['purpose'] = draft.purpose;
  return Object.keys(body).length === 0 ? null : body;
}
