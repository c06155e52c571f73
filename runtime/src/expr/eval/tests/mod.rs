mod agx;
