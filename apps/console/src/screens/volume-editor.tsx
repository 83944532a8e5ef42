import type { Altitude } from '@dfc/contracts';
import { isPoint, parsedJson, type VolumeDraft } from '../map/volumes';
import { Field } from '../ui/components';

const REFERENCES: Array<Altitude['reference']> = ['AGL', 'AMSL', 'WGS84'];
const UNITS: Array<Altitude['units']> = ['m', 'ft'];

/** A new volume: the request's window and a band from the ground to its ceiling, its area still to draw. */
export function newVolume(start: string, end: string, ceiling: string): VolumeDraft {
  return {
    geometry: '',
    radius_m: '',
    lower: { value: '0', reference: 'AGL', units: 'm' },
    upper: { value: ceiling, reference: 'AGL', units: 'm' },
    start_time: start,
    end_time: end,
  };
}

/**
 * The 4-D volumes of a request: each an area (drawn on the map while its "Draw" button is pressed,
 * when there is a map to draw on, or pasted as a GeoJSON Polygon), a band between two altitudes with
 * their reference and unit, and a window of its own. The API's 422 messages sit beside the field of
 * the volume they name.
 */
export function VolumeEditor({
  volumes,
  drawing,
  error,
  onChange,
  onDraw,
  keepOne = false,
}: {
  volumes: VolumeDraft[];
  drawing: number | null;
  error: unknown;
  onChange: (volumes: VolumeDraft[]) => void;
  /** Absent: no map to draw on, the areas are edited as GeoJSON. */
  onDraw?: (index: number | null) => void;
  /** An amended request keeps at least one volume: its last one cannot be removed. */
  keepOne?: boolean;
}) {
  const update = (index: number, change: (draft: VolumeDraft) => VolumeDraft) =>
    onChange(volumes.map((draft, at) => (at === index ? change(draft) : draft)));
  return (
    <div class="volumes">
      {volumes.map((volume, index) => {
        const path = `volumes.${index}`;
        const id = `volume-${index}`;
        const limit = (which: 'lower' | 'upper', label: string) => (
          <fieldset class="altitude">
            <legend>{label}</legend>
            <Field id={`${id}-${which}-value`} label="Value" name={`${path}.altitude_${which}.value`} error={error}>
              {(control) => (
                <input
                  {...control}
                  type="number"
                  value={volume[which].value}
                  onInput={(event) => update(index, (draft) => ({ ...draft, [which]: { ...draft[which], value: event.currentTarget.value } }))}
                />
              )}
            </Field>
            <Field id={`${id}-${which}-reference`} label="Reference" name={`${path}.altitude_${which}.reference`} error={error}>
              {(control) => (
                <select
                  {...control}
                  value={volume[which].reference}
                  onChange={(event) =>
                    update(index, (draft) => ({
                      ...draft,
                      [which]: { ...draft[which], reference: event.currentTarget.value as Altitude['reference'] },
                    }))
                  }
                >
                  {REFERENCES.map((reference) => (
                    <option key={reference}>{reference}</option>
                  ))}
                </select>
              )}
            </Field>
            <Field id={`${id}-${which}-units`} label="Units" name={`${path}.altitude_${which}.units`} error={error}>
              {(control) => (
                <select
                  {...control}
                  value={volume[which].units}
                  onChange={(event) =>
                    update(index, (draft) => ({ ...draft, [which]: { ...draft[which], units: event.currentTarget.value as Altitude['units'] } }))
                  }
                >
                  {UNITS.map((units) => (
                    <option key={units}>{units}</option>
                  ))}
                </select>
              )}
            </Field>
          </fieldset>
        );
        return (
          <fieldset key={index} class={drawing === index ? 'volume drawing' : 'volume'}>
            <legend>Volume {index + 1}</legend>
            <div class="actions">
              {onDraw ? (
                <button type="button" aria-pressed={drawing === index} onClick={() => onDraw(drawing === index ? null : index)}>
                  {drawing === index ? 'Done drawing' : `Draw volume ${index + 1} on the map`}
                </button>
              ) : null}
              <button
                type="button"
                class="danger"
                disabled={keepOne && volumes.length === 1}
                onClick={() => {
                  onDraw?.(null);
                  onChange(volumes.filter((_, at) => at !== index));
                }}
              >
                Remove volume {index + 1}
              </button>
            </div>
            <Field id={`${id}-geometry`} label={`Volume ${index + 1} area (GeoJSON Polygon)`} name={`${path}.geometry`} error={error}>
              {(control) => (
                <textarea
                  {...control}
                  rows={3}
                  spellcheck={false}
                  value={volume.geometry}
                  onInput={(event) => update(index, (draft) => ({ ...draft, geometry: event.currentTarget.value }))}
                />
              )}
            </Field>
            {isPoint(parsedJson(volume.geometry)) ? (
              <Field id={`${id}-radius`} label={`Volume ${index + 1} radius (m)`} name={`${path}.radius_m`} error={error}>
                {(control) => (
                  <input
                    {...control}
                    type="number"
                    min={1}
                    value={volume.radius_m}
                    onInput={(event) => update(index, (draft) => ({ ...draft, radius_m: event.currentTarget.value }))}
                  />
                )}
              </Field>
            ) : null}
            <div class="grid">
              {limit('lower', `Volume ${index + 1} lower limit`)}
              {limit('upper', `Volume ${index + 1} upper limit`)}
            </div>
            <div class="grid">
              <Field id={`${id}-start`} label={`Volume ${index + 1} start (UTC)`} name={`${path}.start_time`} error={error}>
                {(control) => (
                  <input
                    {...control}
                    type="datetime-local"
                    value={volume.start_time}
                    onInput={(event) => update(index, (draft) => ({ ...draft, start_time: event.currentTarget.value }))}
                  />
                )}
              </Field>
              <Field id={`${id}-end`} label={`Volume ${index + 1} end (UTC)`} name={`${path}.end_time`} error={error}>
                {(control) => (
                  <input
                    {...control}
                    type="datetime-local"
                    value={volume.end_time}
                    onInput={(event) => update(index, (draft) => ({ ...draft, end_time: event.currentTarget.value }))}
                  />
                )}
              </Field>
            </div>
          </fieldset>
        );
      })}
    </div>
  );
}
