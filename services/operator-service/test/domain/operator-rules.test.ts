import { expect } from 'chai';
import { checkRegistration, checkUpdate, isValidTimezone, normaliseEmail, operatorRuleErrors } from '../../src/domain/operator-rules.js';

describe('operator rules', () => {
  describe('isValidTimezone', () => {
    for (const name of ['UTC', 'Europe/Berlin', 'America/Indiana/Knox', 'America/Port-au-Prince', 'Etc/GMT-14', 'Etc/UTC']) {
      it(`when the name is ${name}, then it is valid`, () => expect(isValidTimezone(name)).to.equal(true));
    }
    for (const name of ['', 'GMT', 'EST', 'Z', '+02:00', 'Europe/berlin/x', 'europe/Berlin', 'Europe/Atlantis', 'Europe//Berlin']) {
      it(`when the name is "${name}", then it is not`, () => expect(isValidTimezone(name)).to.equal(false));
    }
  });

  it('normaliseEmail trims and lower-cases', () => {
    expect(normaliseEmail('  Pilot@Example.COM ')).to.equal('pilot@example.com');
  });

  describe('operatorRuleErrors', () => {
    it('when exempt without a number, then ctr_exemption_number is required', () => {
      expect(operatorRuleErrors({ exemption_for_ctr: true })).to.have.keys('ctr_exemption_number');
      expect(operatorRuleErrors({ exemption_for_ctr: true, ctr_exemption_number: null })).to.have.keys('ctr_exemption_number');
    });

    it('when not exempt, or exempt with a number, then no error', () => {
      expect(operatorRuleErrors({ exemption_for_ctr: false })).to.deep.equal({});
      expect(operatorRuleErrors({ exemption_for_ctr: true, ctr_exemption_number: 'X' })).to.deep.equal({});
    });

    it('when values have the wrong type, then the rules leave them to the schema', () => {
      expect(operatorRuleErrors({ exemption_for_ctr: 'true', timezone: 42 })).to.deep.equal({});
    });
  });

  describe('checkRegistration', () => {
    it('when the email is well formed, then its normalised form is returned for the uniqueness check', () => {
      const checked = checkRegistration({ email: ' A@B.example ' });
      expect(checked.normalisedEmail).to.equal('a@b.example');
    });

    it('when the email is malformed, then no uniqueness check is asked for', () => {
      expect(checkRegistration({ email: 'nope' }).normalisedEmail).to.equal(undefined);
    });

    it('when a field is unknown, then it is dropped from the value', () => {
      const checked = checkRegistration({ company_name: 'X', role: 'admin' });
      expect(checked.value).not.to.have.property('role');
    });

    it('when the body is not an object, then every required field is reported', () => {
      expect(Object.keys(checkRegistration(null).errors).sort()).to.deep.equal(['company_name', 'email', 'password', 'phone']);
    });
  });

  describe('checkUpdate', () => {
    it('when the change leaves an exemption without a number, then it fails on the merged record', () => {
      const current = { exemption_for_ctr: true, ctr_exemption_number: 'CTR-1', timezone: null };
      expect(checkUpdate({ ctr_exemption_number: '' }, current).errors).to.have.keys('ctr_exemption_number');
      expect(checkUpdate({ exemption_for_ctr: false, ctr_exemption_number: null }, current).errors).to.deep.equal({});
    });
  });
});
