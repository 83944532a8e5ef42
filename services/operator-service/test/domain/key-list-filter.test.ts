import { expect } from 'chai';
import { keyListFilter } from '../../src/domain/key-list-filter.js';

describe("keyListFilter (the admin's key filters, reduced to one owner field)", () => {
  const uuid = '6f1c2b9e-0c1d-4d8e-9a55-3c2b1f0e7a11';

  it('when an operator is named, then it is the owner; role operator adds nothing', () => {
    expect(keyListFilter({ operator_uuid: uuid, role: 'operator', status: 'active' })).to.deep.equal({
      owner: { operator_uuid: uuid },
      status: 'active',
    });
  });

  it('when an authority is named, then it is the owner; role reviewer adds nothing', () => {
    expect(keyListFilter({ authority: 'LBA', role: 'reviewer' })).to.deep.equal({ owner: { authority: 'LBA' } });
  });

  it('when only a role is named, then the role is the owner', () => {
    expect(keyListFilter({ role: 'admin', status: 'revoked' })).to.deep.equal({ owner: { role: 'admin' }, status: 'revoked' });
  });

  it('when nothing is named, then every key is listed', () => {
    expect(keyListFilter({})).to.deep.equal({ owner: {} });
  });

  it('when the filters contradict each other, then no key can match (null)', () => {
    expect(keyListFilter({ operator_uuid: uuid, role: 'reviewer' })).to.equal(null);
    expect(keyListFilter({ operator_uuid: uuid, authority: 'LBA' })).to.equal(null);
    expect(keyListFilter({ authority: 'LBA', role: 'admin' })).to.equal(null);
  });
});
