import { Aws } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';

/**
 * A service principal that may act for this account only (`aws:SourceAccount`): used in every role
 * trust policy, so the service cannot be made to assume the role on behalf of another account
 * (the confused-deputy problem).
 */
export function accountScopedServicePrincipal(service: string): iam.ServicePrincipal {
  return new iam.ServicePrincipal(service, { conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } } });
}
