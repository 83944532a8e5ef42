import { expect } from 'chai';
import { ForbiddenError, NotFoundError, UnauthenticatedError } from '@dfc/kit/errors';
import type { Principal } from '@dfc/contracts';
import { assertCanReadOperator, assertIsOperatorOrAdmin } from '../../src/domain/access.js';

const uuid = '6f1c2b9e-0c1d-4d8e-9a55-3c2b1f0e7a11';
const own: Principal = { sub: uuid, role: 'operator', operator_uuid: uuid };
const other: Principal = { sub: 'x', role: 'operator', operator_uuid: '11111111-1111-4111-8111-111111111111' };
const reviewer: Principal = { sub: 'r', role: 'reviewer', authority: 'LBA' };
const admin: Principal = { sub: 'a', role: 'admin' };
const anonymous: Principal = { sub: 'anonymous', role: 'anonymous' };
const system: Principal = { sub: 'gateway', role: 'system' };

describe('operator access rules', () => {
  it('reading: the operator itself, reviewers and admins may', () => {
    for (const principal of [own, reviewer, admin]) expect(() => assertCanReadOperator(principal, uuid)).not.to.throw();
  });

  it('reading: another operator gets 404, anonymous 401, system 403', () => {
    expect(() => assertCanReadOperator(other, uuid)).to.throw(NotFoundError);
    expect(() => assertCanReadOperator(anonymous, uuid)).to.throw(UnauthenticatedError);
    expect(() => assertCanReadOperator(system, uuid)).to.throw(ForbiddenError);
  });

  it('changing: the operator itself and admins may; reviewers get 403', () => {
    expect(() => assertIsOperatorOrAdmin(own, uuid)).not.to.throw();
    expect(() => assertIsOperatorOrAdmin(admin, uuid)).not.to.throw();
    expect(() => assertIsOperatorOrAdmin(reviewer, uuid)).to.throw(ForbiddenError);
    expect(() => assertIsOperatorOrAdmin(other, uuid)).to.throw(NotFoundError);
  });
});
