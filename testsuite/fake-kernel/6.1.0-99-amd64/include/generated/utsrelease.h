#define UTS_RELEASE "6.1.0-99-amd64"
